#include "core/runtime/actor_fleet.h"

#include <chrono>
#include <fmt/format.h>

#include "core/platform/thread_priority.h"

namespace rlzoo {

// Waits for a credit, then pushes into the shared queue.
class ActorFleet::CreditSink : public TrajectorySink {
 public:
  CreditSink(ActorFleet& fleet, int actor) : fleet_(&fleet), actor_(actor) {}
  bool push(Trajectory trajectory) override {
    ActorFleet& f = *fleet_;
    {
      std::unique_lock lock(f.credit_mutex_);
      const auto a = static_cast<std::size_t>(actor_);
      f.credit_.wait(lock, [&] {
        return f.threads_.stop_source().stop_requested() ||
               trajectory.sequence < f.options_.first_sequence + f.taken_[a] + f.options_.queue_capacity;
      });
      if (f.threads_.stop_source().stop_requested()) return false;
    }
    return f.queue_.push(std::move(trajectory));
  }
  Trajectory make(const TrajectoryShape& shape) override {
    if (auto t = fleet_->reuse(shape)) return std::move(*t);
    return Trajectory(shape);
  }

 private:
  ActorFleet* fleet_;
  int actor_;
};

ActorFleet::ActorFleet(const ActorFleetOptions& options, const EnvFactory& make_envs, const PolicyFactory& make_policy)
    : options_(options),
      queue_(std::max<std::size_t>(options.queue_capacity, 1) * static_cast<std::size_t>(std::max(options.actors, 1))),
      next_sequence_(options.first_sequence) {
  if (options.actors < 1) throw UserError(fmt::format("runtime.actors must be >= 1, got {}", options.actors));
  if (options.envs_per_actor < 1)
    throw UserError(fmt::format("runtime.envs_per_actor must be >= 1, got {}", options.envs_per_actor));
  if (options.queue_capacity < 1)
    throw UserError(fmt::format("runtime.queue_capacity must be >= 1, got {}", options.queue_capacity));
  taken_.assign(static_cast<std::size_t>(options.actors), 0);
  for (int a = 0; a < options.actors; ++a) {
    envs_.push_back(make_envs(a));
    RLZOO_CHECK(envs_.back() && envs_.back()->num_envs() == options.envs_per_actor,
                "the env factory must give envs_per_actor envs");
    policies_.push_back(make_policy(a));
    sinks_.push_back(std::make_unique<CreditSink>(*this, a));
  }
  threads_.stop_source().on_stop([this] {
    queue_.close();
    { std::lock_guard lock(credit_mutex_); }
    credit_.notify_all();
  });
}

ActorFleet::~ActorFleet() {
  try {
    stop();
  } catch (...) {  // reported by whoever called next_round(); nothing to add while unwinding
  }
}

void ActorFleet::start() {
  RLZOO_CHECK(!started_, "ActorFleet::start called twice");
  started_ = true;
  for (int a = 0; a < options_.actors; ++a) {
    ActorLoopOptions lo;
    lo.actor = a;
    lo.env_offset = a * options_.envs_per_actor;
    lo.steps_per_trajectory = options_.steps_per_trajectory;
    lo.reset_seed = options_.reset_seed;
    lo.first_sequence = options_.first_sequence;
    threads_.spawn(fmt::format("actor-{}", a), [this, a, lo](const StopSource& stop) {
      raise_current_thread_nice(options_.actor_nice);
      const auto i = static_cast<std::size_t>(a);
      run_actor_loop(*envs_[i], *policies_[i], *sinks_[i], lo, stop);
    });
  }
}

void ActorFleet::hand_over(int actor) {
  {
    std::lock_guard lock(credit_mutex_);
    ++taken_[static_cast<std::size_t>(actor)];
  }
  credit_.notify_all();
}

std::optional<Trajectory> ActorFleet::pop() {
  RLZOO_CHECK(started_, "ActorFleet: taking trajectories before start()");
  for (;;) {
    threads_.check();  // an actor's error first: it is why the fleet stopped
    if (threads_.stop_source().stop_requested()) return std::nullopt;  // a stopped fleet delivers nothing more
    if (signal_stop_requested()) {
      interrupted_ = true;
      threads_.stop_source().request_stop();
      return std::nullopt;
    }
    if (auto item = queue_.pop_for(std::chrono::milliseconds(20))) return item;
  }
}

std::optional<Trajectory> ActorFleet::next_trajectory() {
  auto item = pop();
  if (item) hand_over(item->actor);
  return item;
}

std::optional<std::vector<Trajectory>> ActorFleet::next_round_parts() {
  const std::uint64_t seq = next_sequence_;
  auto complete = [&] {
    for (int a = 0; a < options_.actors; ++a)
      if (!early_.count({seq, a})) return false;
    return true;
  };
  while (!complete()) {
    auto item = pop();
    if (!item) return std::nullopt;
    const auto key = std::make_pair(item->sequence, item->actor);
    RLZOO_CHECK(!early_.count(key), "ActorFleet: a trajectory arrived twice");
    early_.emplace(key, std::move(*item));
  }
  std::vector<Trajectory> parts;
  parts.reserve(static_cast<std::size_t>(options_.actors));
  for (int a = 0; a < options_.actors; ++a) {
    auto it = early_.find({seq, a});
    parts.push_back(std::move(it->second));
    early_.erase(it);
    hand_over(a);
  }
  ++next_sequence_;
  return parts;
}

std::optional<Trajectory> ActorFleet::next_round() {
  auto parts = next_round_parts();
  if (!parts) return std::nullopt;
  if (parts->size() == 1) return std::move(parts->front());
  Trajectory merged = merge_envs(*parts);
  for (auto& p : *parts) recycle(std::move(p));
  return merged;
}

void ActorFleet::recycle(Trajectory trajectory) {
  std::lock_guard lock(pool_mutex_);
  // Enough for every actor's trajectories in flight; more would only hold memory.
  if (pool_.size() < static_cast<std::size_t>(options_.actors) * (options_.queue_capacity + 2))
    pool_.push_back(std::move(trajectory));
}

std::optional<Trajectory> ActorFleet::reuse(const TrajectoryShape& shape) {
  std::lock_guard lock(pool_mutex_);
  for (std::size_t i = pool_.size(); i-- > 0;)
    if (pool_[i].shape == shape) {
      Trajectory t = std::move(pool_[i]);
      pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(i));
      return t;
    }
  return std::nullopt;
}

void ActorFleet::stop() { threads_.stop_and_join(); }

}  // namespace rlzoo
