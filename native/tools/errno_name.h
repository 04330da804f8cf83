// The symbolic name of an errno, as Node's os.constants.errno names it (src/platform/os-constants.ts).
#pragma once

namespace sexton {

class Text;

/** Appends ENOENT, EACCES, ... or `errno N` for one this table lacks. */
void add_errno_name(Text& out, int error);

}  // namespace sexton
