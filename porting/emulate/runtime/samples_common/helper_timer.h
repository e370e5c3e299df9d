// rocm-port `port emulate`: the timer API of the CUDA samples' helper_timer.h (shipped with the
// toolkit under samples/common/inc until CUDA 11.6; teaching code still includes it from there),
// written anew. Found after the program's own -I directories (-idirafter): a program that brings
// its own copy uses that one. Times are host wall-clock milliseconds.
#pragma once
#include <chrono>

class StopWatchInterface {
 public:
  virtual ~StopWatchInterface() {}
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void reset() = 0;
  virtual float getTime() = 0;         // ms of the sessions so far, the running one included
  virtual float getAverageTime() = 0;  // ms per completed session
};

class StopWatchLinux : public StopWatchInterface {
 public:
  void start() override {
    began_ = std::chrono::steady_clock::now();
    running_ = true;
  }
  void stop() override {
    if (!running_) return;
    total_ms_ += since_start();
    running_ = false;
    ++sessions_;
  }
  void reset() override {
    total_ms_ = 0;
    sessions_ = 0;
    if (running_) began_ = std::chrono::steady_clock::now();
  }
  float getTime() override { return total_ms_ + (running_ ? since_start() : 0.0f); }
  float getAverageTime() override { return sessions_ > 0 ? total_ms_ / (float)sessions_ : 0.0f; }

 private:
  float since_start() const {
    return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - began_).count();
  }
  std::chrono::steady_clock::time_point began_{};
  bool running_ = false;
  float total_ms_ = 0;
  int sessions_ = 0;
};

inline bool sdkCreateTimer(StopWatchInterface** t) {
  *t = new StopWatchLinux();
  return true;
}
inline bool sdkDeleteTimer(StopWatchInterface** t) {
  delete *t;
  *t = nullptr;
  return true;
}
inline bool sdkStartTimer(StopWatchInterface** t) {
  if (*t) (*t)->start();
  return true;
}
inline bool sdkStopTimer(StopWatchInterface** t) {
  if (*t) (*t)->stop();
  return true;
}
inline bool sdkResetTimer(StopWatchInterface** t) {
  if (*t) (*t)->reset();
  return true;
}
inline float sdkGetTimerValue(StopWatchInterface** t) { return *t ? (*t)->getTime() : 0.0f; }
inline float sdkGetAverageTimerValue(StopWatchInterface** t) { return *t ? (*t)->getAverageTime() : 0.0f; }
