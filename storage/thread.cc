#include "storage/thread.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace rokka::storage {

void name_this_thread(const char* name) {
  const std::string kept(name, std::min<size_t>(std::strlen(name), 15));
  pthread_setname_np(pthread_self(), kept.c_str());
}

void batch_scheduling() {
  sched_param param{};
  param.sched_priority = 0;  // the only priority SCHED_BATCH takes
  pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
}

}  // namespace rokka::storage
