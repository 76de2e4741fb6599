#include <cstdio>

int main() {
  std::puts("rokka: broker not built yet");
  return 1;
}
