// TimerQueue: the coordinator's deadlines, in one indexed binary min-heap.
//
// Every member's session deadline, every group's join/sync deadline and the offset
// expiry tick live here, one entry each. A heartbeat moves its member's entry
// (reschedule: O(log n), no allocation) instead of adding a new one, so the heap holds
// exactly the live timers, and the earliest deadline is always one that will really
// fire: the owner (GroupService) arms ONE system timer for next_deadline() and nothing
// runs while nothing expires -- no per-tick scan, however many groups there are.
//
// Not thread-safe: used on the coordinator's strand only. Deadlines are milliseconds on
// the coordinator's clock. Timers due at the same instant fire in scheduling order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace rokka::coordinator {

class TimerQueue {
 public:
  using Id = uint64_t;
  static constexpr Id kNone = 0;

  // Adds a timer; `fn` runs from run_due() once the clock reaches `deadline_ms`.
  Id schedule(int64_t deadline_ms, std::function<void()> fn);
  // Moves a pending timer to a new deadline (earlier or later).
  // REQUIRES: `id` is pending (scheduled, not yet fired or cancelled).
  void reschedule(Id id, int64_t deadline_ms);
  // Removes a pending timer and sets `id` to kNone. A no-op for kNone or a spent id.
  void cancel(Id& id);
  bool pending(Id id) const;

  std::optional<int64_t> next_deadline() const;
  // Fires, in deadline order, every timer due at `now_ms` (including ones scheduled
  // by the callbacks themselves, if already due). Returns how many fired.
  size_t run_due(int64_t now_ms);

  size_t size() const { return heap_.size(); }
  uint64_t fired_total() const { return fired_total_; }

 private:
  struct Node {
    int64_t deadline;
    uint64_t seq;  // tie-break: scheduling order
    uint32_t slot;
  };
  struct Slot {
    uint32_t generation = 0;  // bumped on every reuse, so a spent Id never matches
    size_t heap_index = 0;
    bool live = false;
    std::function<void()> fn;
  };

  static Id make_id(uint32_t slot, uint32_t generation) { return (uint64_t{generation} << 32) | slot; }
  const Slot* find(Id id) const;
  bool less(size_t a, size_t b) const;
  void swap_nodes(size_t a, size_t b);
  void sift_up(size_t i);
  void sift_down(size_t i);
  void remove_at(size_t i);  // frees the slot of heap_[i]

  std::vector<Node> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
  uint64_t fired_total_ = 0;
};

}  // namespace rokka::coordinator
