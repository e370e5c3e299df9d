// Host code that tries what a hostile program would: write outside its run directory (argv[1]),
// open a network socket, and leave a daemon behind that holds the output pipe and a lock on
// daemon.lock. It also prints argv[0] and a timing line, which must not make the widths differ.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void fill(int* out) { out[threadIdx.x] = threadIdx.x; }

int main(int argc, char** argv) {
  printf("program %s\n", argv[0]);
  FILE* f = argc > 1 ? fopen(argv[1], "w") : nullptr;
  printf("outside write %s\n", f ? "allowed" : "refused");
  if (f) fclose(f);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(53);
  a.sin_addr.s_addr = htonl(0x01010101);  // 1.1.1.1: no route without a network
  printf("network %s\n", connect(s, (sockaddr*)&a, sizeof a) == 0 ? "reachable" : "unreachable");
  bool daemon = !(argc > 2 && strcmp(argv[2], "nodaemon") == 0);
  if (daemon && fork() == 0) {  // a daemon: own session, keeps stdout open, holds a lock
    setsid();
    int fd = open("daemon.lock", O_CREAT | O_RDWR, 0600);
    flock(fd, LOCK_EX);
    FILE* ready = fopen("daemon.ready", "w");
    fclose(ready);
    for (;;) pause();
  }
  while (daemon && access("daemon.ready", F_OK) != 0) usleep(1000);
  int* d;
  cudaMallocManaged(&d, 64 * sizeof(int));
  fill<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  printf("sum %d\n", d[63] + d[0]);
  long long ns = std::chrono::steady_clock::now().time_since_epoch().count();
  printf("Time = %lld.%03lld ms, %lld.5 GB/s\n", ns % 1000, ns / 1000 % 1000, ns % 97);
  return 0;
}
