// Includes helper_timer.h from its own -I directory, as cuda-samples do from Common/.
#include <cstdio>
#include <helper_timer.h>

int main() {
  printf("%s\n", whose_timer());
  return 0;
}
