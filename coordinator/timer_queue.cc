#include "coordinator/timer_queue.h"

#include <cassert>
#include <utility>

namespace rokka::coordinator {

TimerQueue::Id TimerQueue::schedule(int64_t deadline_ms, std::function<void()> fn) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.generation += 1;  // generation 0 is never handed out, so no Id equals kNone
  s.live = true;
  s.fn = std::move(fn);
  s.heap_index = heap_.size();
  heap_.push_back(Node{deadline_ms, next_seq_++, slot});
  sift_up(heap_.size() - 1);
  return make_id(slot, s.generation);
}

const TimerQueue::Slot* TimerQueue::find(Id id) const {
  const uint32_t slot = static_cast<uint32_t>(id & 0xffffffffu);
  const uint32_t generation = static_cast<uint32_t>(id >> 32);
  if (id == kNone || slot >= slots_.size()) return nullptr;
  const Slot& s = slots_[slot];
  return s.live && s.generation == generation ? &s : nullptr;
}

bool TimerQueue::pending(Id id) const { return find(id) != nullptr; }

void TimerQueue::reschedule(Id id, int64_t deadline_ms) {
  const Slot* s = find(id);
  assert(s != nullptr);
  if (s == nullptr) return;
  const uint32_t slot = heap_[s->heap_index].slot;
  heap_[s->heap_index].deadline = deadline_ms;
  heap_[s->heap_index].seq = next_seq_++;
  sift_up(slots_[slot].heap_index);
  sift_down(slots_[slot].heap_index);
}

void TimerQueue::cancel(Id& id) {
  if (const Slot* s = find(id)) remove_at(s->heap_index);
  id = kNone;
}

std::optional<int64_t> TimerQueue::next_deadline() const {
  if (heap_.empty()) return std::nullopt;
  return heap_.front().deadline;
}

size_t TimerQueue::run_due(int64_t now_ms) {
  size_t fired = 0;
  while (!heap_.empty() && heap_.front().deadline <= now_ms) {
    std::function<void()> fn = std::move(slots_[heap_.front().slot].fn);
    remove_at(0);  // before running: the callback may schedule or cancel freely
    ++fired;
    ++fired_total_;
    fn();
  }
  return fired;
}

bool TimerQueue::less(size_t a, size_t b) const {
  if (heap_[a].deadline != heap_[b].deadline) return heap_[a].deadline < heap_[b].deadline;
  return heap_[a].seq < heap_[b].seq;
}

void TimerQueue::swap_nodes(size_t a, size_t b) {
  std::swap(heap_[a], heap_[b]);
  slots_[heap_[a].slot].heap_index = a;
  slots_[heap_[b].slot].heap_index = b;
}

void TimerQueue::sift_up(size_t i) {
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!less(i, parent)) return;
    swap_nodes(i, parent);
    i = parent;
  }
}

void TimerQueue::sift_down(size_t i) {
  for (;;) {
    size_t smallest = i;
    const size_t left = 2 * i + 1;
    const size_t right = left + 1;
    if (left < heap_.size() && less(left, smallest)) smallest = left;
    if (right < heap_.size() && less(right, smallest)) smallest = right;
    if (smallest == i) return;
    swap_nodes(i, smallest);
    i = smallest;
  }
}

void TimerQueue::remove_at(size_t i) {
  const uint32_t slot = heap_[i].slot;
  const size_t last = heap_.size() - 1;
  if (i != last) swap_nodes(i, last);
  heap_.pop_back();
  if (i < heap_.size()) {  // the former last node now sits at i: restore heap order around it
    const uint32_t moved = heap_[i].slot;
    sift_up(i);
    sift_down(slots_[moved].heap_index);
  }
  Slot& s = slots_[slot];
  s.live = false;
  s.fn = nullptr;
  free_slots_.push_back(slot);
}

}  // namespace rokka::coordinator
