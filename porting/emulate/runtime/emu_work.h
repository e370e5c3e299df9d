// rocm-port `port emulate`, part of emu_runtime.h: a deferred piece of work (a graph node, a
// captured launch) and the argument pack a launch copies, without the standard library's
// <functional>, <memory> or <tuple>.
//
// nvcc's headers bring <cmath>, <cstdlib>, <new>, <utility> and libstdc++'s stl_algobase.h into
// a CUDA program, nothing more; the runtime's headers bring the same, so a program with `using
// namespace std;` and a global named `size`, `function`, `vector`, `less` or `tie` compiles here as
// it does with nvcc (docs/emulate.md). std::function, std::tuple and std::shared_ptr would bring
// those names; the two types below stand in for them, and the containers behind graphs and the
// kernel registry live in the runtime object (emu_graph.cpp).
#pragma once
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace emu {
// A copyable, type-erased `void()` callable (what std::function<void()> was here).
class Work {
  struct Ops {
    void (*call)(void*);
    void* (*clone)(const void*);
    void (*drop)(void*);
  };
  template <class F> struct OpsFor {
    static void call(void* f) { (*static_cast<F*>(f))(); }
    static void* clone(const void* f) { return new F(*static_cast<const F*>(f)); }
    static void drop(void* f) { delete static_cast<F*>(f); }
    static constexpr Ops ops{&call, &clone, &drop};
  };
  const Ops* ops_ = nullptr;
  void* fn_ = nullptr;

 public:
  Work() = default;
  template <class F, class = std::enable_if_t<!std::is_same<std::decay_t<F>, Work>::value>>
  Work(F f) : ops_(&OpsFor<F>::ops), fn_(new F(std::move(f))) {}  // NOLINT: converts as std::function does
  Work(const Work& o) : ops_(o.ops_), fn_(o.ops_ ? o.ops_->clone(o.fn_) : nullptr) {}
  Work(Work&& o) noexcept : ops_(o.ops_), fn_(o.fn_) { o.ops_ = nullptr; o.fn_ = nullptr; }
  Work& operator=(Work o) noexcept {
    std::swap(ops_, o.ops_);
    std::swap(fn_, o.fn_);
    return *this;
  }
  ~Work() { if (ops_) ops_->drop(fn_); }
  void operator()() const { if (ops_) ops_->call(fn_); }
  explicit operator bool() const { return ops_ != nullptr; }
};

// The copies of a launch's arguments (what std::tuple was here): apply(f) calls f with them.
// Made from the arguments with the tag first (Pack<T...>(PackFrom{}, args...)), so that copying
// a Pack never takes the constructor from arguments.
struct PackFrom {};
template <std::size_t I, class T> struct PackItem {
  T value;
  template <class U> PackItem(PackFrom, U&& u) : value(std::forward<U>(u)) {}
};
template <class Seq, class... T> struct PackBase;
template <std::size_t... I, class... T> struct PackBase<std::index_sequence<I...>, T...> : PackItem<I, T>... {
  template <class... U> explicit PackBase(PackFrom tag, U&&... u) : PackItem<I, T>(tag, std::forward<U>(u))... {}
  template <class F> void apply(F& f) { f(static_cast<PackItem<I, T>&>(*this).value...); }
};
template <class... T> struct Pack : PackBase<std::index_sequence_for<T...>, T...> {
  template <class... U>
  explicit Pack(PackFrom tag, U&&... u) : PackBase<std::index_sequence_for<T...>, T...>(tag, std::forward<U>(u)...) {}
};
}  // namespace emu
