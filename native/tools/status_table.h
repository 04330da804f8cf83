// The table `sexton status` prints, from the snapshot's JSON: the one src/report/stats.ts's
// formatStatus made when the client ran on Node, line for line.
#pragma once

namespace sexton {

class Text;
struct Json;

void format_status(Json snapshot, Text& out);

}  // namespace sexton
