// Names of the system calls a stuck process is usually found in (file, socket, sleep and wait
// calls), by number on the two architectures sexton ships for. Others are shown as `#NR`.
const X64 = `read 0 write 1 open 2 close 3 stat 4 fstat 5 lstat 6 poll 7 lseek 8 mmap 9 munmap 11 ioctl 16
pread64 17 pwrite64 18 readv 19 writev 20 access 21 select 23 msync 26 madvise 28 pause 34 nanosleep 35
sendfile 40 connect 42 accept 43 sendto 44 recvfrom 45 sendmsg 46 recvmsg 47 clone 56 fork 57 vfork 58
execve 59 exit 60 wait4 61 fcntl 72 flock 73 fsync 74 fdatasync 75 truncate 76 ftruncate 77 getdents 78
getcwd 79 chdir 80 rename 82 mkdir 83 rmdir 84 creat 85 link 86 unlink 87 symlink 88 readlink 89
statfs 137 fstatfs 138 sync 162 mount 165 umount2 166 futex 202 io_getevents 208 getdents64 217
clock_nanosleep 230 exit_group 231 epoll_wait 232 waitid 247 openat 257 mkdirat 258 newfstatat 262
unlinkat 263 renameat 264 pselect6 270 ppoll 271 splice 275 sync_file_range 277 epoll_pwait 281
fallocate 285 accept4 288 syncfs 306 renameat2 316 copy_file_range 326 statx 332 io_uring_enter 426
openat2 437`;
const ARM64 = `io_getevents 4 getcwd 17 epoll_pwait 22 fcntl 25 ioctl 29 flock 32 mkdirat 34 unlinkat 35
renameat 38 umount2 39 mount 40 statfs 43 fstatfs 44 truncate 45 ftruncate 46 fallocate 47 chdir 49
openat 56 close 57 getdents64 61 lseek 62 read 63 write 64 readv 65 writev 66 pread64 67 pwrite64 68
sendfile 71 pselect6 72 ppoll 73 splice 76 readlinkat 78 newfstatat 79 fstat 80 sync 81 fsync 82
fdatasync 83 sync_file_range 84 exit 93 exit_group 94 waitid 95 futex 98 nanosleep 101
clock_nanosleep 115 kill 129 accept 202 connect 203 sendto 206 recvfrom 207 sendmsg 211 recvmsg 212
munmap 215 clone 220 execve 221 mmap 222 msync 227 madvise 233 accept4 242 wait4 260 syncfs 267
renameat2 276 statx 291 io_uring_enter 426 openat2 437`;

const tables = new Map<string, Map<number, string>>();

function table(text: string): Map<number, string> {
  const words = text.split(/\s+/);
  const out = new Map<number, string>();
  for (let i = 0; i + 1 < words.length; i += 2) out.set(Number(words[i + 1]), words[i]);
  return out;
}

export function syscallName(nr: number, arch: string): string | undefined {
  const text = arch === 'x64' ? X64 : arch === 'arm64' ? ARM64 : undefined;
  if (!text) return undefined;
  if (!tables.has(arch)) tables.set(arch, table(text));
  return tables.get(arch)?.get(nr);
}
