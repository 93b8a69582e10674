// The runtime's torch-free primitives under contention: queue, parameter store, thread group,
// batching server. These run under ThreadSanitizer too (scripts/test-tsan).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <set>
#include <thread>

#include "core/runtime/batching_server.h"
#include "core/runtime/bounded_queue.h"
#include "core/runtime/parameter_store.h"
#include "core/runtime/thread_group.h"

namespace rlzoo {
namespace {

using namespace std::chrono_literals;

TEST(RuntimeQueue, NeverLosesOrDuplicatesUnderContention) {
  constexpr int kProducers = 4, kConsumers = 3, kPerProducer = 5000;
  BoundedQueue<std::int64_t> queue(8);
  std::vector<std::vector<std::int64_t>> seen(kConsumers);
  std::atomic<std::size_t> max_size{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kConsumers; ++c)
    threads.emplace_back([&, c] {
      while (auto v = queue.pop()) {
        seen[static_cast<std::size_t>(c)].push_back(*v);
        std::size_t s = queue.size(), m = max_size.load();
        while (s > m && !max_size.compare_exchange_weak(m, s)) {
        }
      }
    });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) ASSERT_TRUE(queue.push(std::int64_t{p} * kPerProducer + i));
    });
  for (auto& t : producers) t.join();
  queue.close();  // consumers drain what is left, then stop
  for (auto& t : threads) t.join();

  std::vector<std::int64_t> all;
  for (auto& s : seen) all.insert(all.end(), s.begin(), s.end());
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kProducers * kPerProducer));
  std::sort(all.begin(), all.end());
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], static_cast<std::int64_t>(i)) << "lost or duplicated";
  EXPECT_EQ(queue.pushed(), all.size());
  EXPECT_EQ(queue.popped(), all.size());
  EXPECT_LE(max_size.load(), queue.capacity());
  // Each consumer sees one producer's items in the order they were pushed (FIFO).
  for (auto& s : seen)
    for (int p = 0; p < kProducers; ++p) {
      std::int64_t last = -1;
      for (std::int64_t v : s)
        if (v / kPerProducer == p) {
          EXPECT_GT(v, last);
          last = v;
        }
    }
}

TEST(RuntimeQueue, BackPressureAndClose) {
  BoundedQueue<int> queue(2);
  int a = 1, b = 2, c = 3;
  EXPECT_TRUE(queue.try_push(a));
  EXPECT_TRUE(queue.try_push(b));
  EXPECT_FALSE(queue.try_push(c)) << "a full queue must refuse";
  // A producer blocked on the full queue wakes when it is closed and reports failure.
  std::atomic<int> result{-1};
  std::thread producer([&] { result = queue.push(4) ? 1 : 0; });
  queue.close();
  producer.join();
  EXPECT_EQ(result.load(), 0);
  EXPECT_EQ(queue.pop().value(), 1);  // closed queues still drain
  EXPECT_EQ(queue.pop().value(), 2);
  EXPECT_FALSE(queue.pop().has_value());
  EXPECT_FALSE(queue.push(5));
  EXPECT_THROW(BoundedQueue<int>(0), UserError);
}

TEST(RuntimeQueue, PopForTimesOutOnEmpty) {
  BoundedQueue<int> queue(1);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(queue.pop_for(5ms).has_value());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 5ms);
  EXPECT_FALSE(queue.closed());
}

TEST(RuntimeParameterStore, ReadersNeverSeeATornUpdate) {
  // The writer publishes vectors whose every element is the version it will get; readers check
  // that a snapshot is uniform and matches its version, and that versions never go back.
  constexpr std::size_t kSize = 4096;
  constexpr std::uint64_t kVersions = 300;
  ParameterStore<std::vector<std::uint64_t>> store;
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> checks{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r)
    readers.emplace_back([&] {
      ParameterClient<std::vector<std::uint64_t>> client(store);
      std::uint64_t last = 0;
      while (!done.load()) {
        if (!client.refresh()) {
          std::this_thread::yield();
          continue;
        }
        const auto& v = *client.snapshot();
        ASSERT_GE(client.version(), last);
        last = client.version();
        ASSERT_EQ(v.size(), kSize);
        for (std::uint64_t x : v) ASSERT_EQ(x, client.version()) << "torn snapshot";
        checks.fetch_add(1);
      }
    });
  // Publish at least kVersions versions, and go on until the readers have checked a good number
  // of snapshots while publishing was going on (however the threads were scheduled).
  std::uint64_t k = 0;
  while (k < kVersions || checks.load() < 200) {
    ++k;
    if (store.publish(std::vector<std::uint64_t>(kSize, k)) != k) {
      ADD_FAILURE() << "publish gave the wrong version";
      break;
    }
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(store.version(), k);
  EXPECT_EQ(store.get().value->front(), k);
  EXPECT_GE(checks.load(), 200u);
}

TEST(RuntimeParameterStore, WaitForVersionAndStop) {
  ParameterStore<int> store;
  StopSource stop;
  stop.on_stop([&] { store.wake(); });
  ParameterClient<int> client(store);
  EXPECT_EQ(client.snapshot(), nullptr);
  std::thread writer([&] {
    store.publish(10);
    store.publish(20);
  });
  EXPECT_TRUE(client.wait_for(2, stop));
  writer.join();
  EXPECT_EQ(client.version(), 2u);
  EXPECT_EQ(*client.snapshot(), 20);
  EXPECT_FALSE(client.wait_for(1, stop)) << "already held";
  // A waiter for a version that never comes is released by a stop.
  std::thread waiter([&] {
    ParameterClient<int> c(store);
    c.wait_for(99, stop);
    EXPECT_EQ(c.version(), 2u);
  });
  stop.request_stop();
  waiter.join();
}

TEST(RuntimeThreadGroup, ErrorReachesOwnerOnceNamingTheThread) {
  BoundedQueue<int> queue(1);
  ThreadGroup group;
  group.stop_source().on_stop([&] { queue.close(); });
  // Two workers block on the queue; one fails. The failure must stop and release them.
  for (int i = 0; i < 2; ++i)
    group.spawn("consumer-" + std::to_string(i), [&](const StopSource&) {
      while (queue.pop()) {
      }
    });
  group.spawn("actor-7", [](const StopSource&) { throw UserError("env exploded at step 3"); });
  const auto t0 = std::chrono::steady_clock::now();
  while (!group.wait_for(100ms)) {
    ASSERT_LT(std::chrono::steady_clock::now() - t0, 10s) << "workers did not stop after a failure";
  }
  try {
    group.check();
    FAIL() << "no error reported";
  } catch (const ThreadError& e) {
    EXPECT_EQ(e.thread(), "actor-7");
    EXPECT_STREQ(e.what(), "thread 'actor-7' failed: env exploded at step 3");
    EXPECT_THROW(std::rethrow_exception(e.cause()), UserError);
  }
  EXPECT_NO_THROW(group.check()) << "reported once";
  EXPECT_NO_THROW(group.join());
  EXPECT_TRUE(group.stop_source().stop_requested());
}

TEST(RuntimeThreadGroup, StopEndsWorkersAndDestructorJoins) {
  std::atomic<int> finished{0};
  {
    ThreadGroup group;
    for (int i = 0; i < 3; ++i)
      group.spawn("w" + std::to_string(i), [&](const StopSource& stop) {
        while (!stop.stop_requested()) std::this_thread::yield();
        ++finished;
      });
    group.stop_and_join();
    EXPECT_EQ(finished.load(), 3);
  }
  {
    ThreadGroup group;  // the destructor stops and joins too
    group.spawn("w", [&](const StopSource& stop) {
      while (!stop.stop_requested()) std::this_thread::yield();
      ++finished;
    });
  }
  EXPECT_EQ(finished.load(), 4);
}

TEST(RuntimeStop, CallbacksRunOnceAndLateOnesAtOnce) {
  StopSource stop;
  int calls = 0;
  stop.on_stop([&] { ++calls; });
  EXPECT_TRUE(stop.request_stop());
  EXPECT_FALSE(stop.request_stop());
  EXPECT_EQ(calls, 1);
  stop.on_stop([&] { ++calls; });
  EXPECT_EQ(calls, 2);
}

TEST(RuntimeBatchingServer, GathersRequestsAndScattersAnswers) {
  // Rows are int32 values; the answer row is (value * 2, size of the batch it was served in).
  constexpr int kClients = 4, kCalls = 300;
  BatchingOptions opt;
  opt.max_batch = 64;
  opt.max_wait_us = 2000;
  opt.clients = kClients;
  BatchingServer server(sizeof(std::int32_t), 2 * sizeof(std::int32_t),
                        [](ConstBytes in, std::int64_t rows, Bytes out) {
                          auto i = as_span<const std::int32_t>(in);
                          auto o = as_span<std::int32_t>(out);
                          for (std::int64_t r = 0; r < rows; ++r) {
                            o[2 * r] = 2 * i[r];
                            o[2 * r + 1] = static_cast<std::int32_t>(rows);
                          }
                        },
                        opt);
  std::atomic<std::int64_t> max_seen_batch{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c)
    clients.emplace_back([&, c] {
      for (int k = 0; k < kCalls; ++k) {
        const int rows = 1 + (k + c) % 5;
        std::vector<std::int32_t> in(rows), out(2 * rows);
        for (int r = 0; r < rows; ++r) in[r] = c * 100000 + k * 10 + r;
        ASSERT_TRUE(server.evaluate(std::as_bytes(std::span(in)), rows, std::as_writable_bytes(std::span(out))));
        for (int r = 0; r < rows; ++r) {
          ASSERT_EQ(out[2 * r], 2 * in[r]) << "answer scattered to the wrong request";
          std::int64_t m = max_seen_batch.load();
          while (out[2 * r + 1] > m && !max_seen_batch.compare_exchange_weak(m, out[2 * r + 1])) {
          }
        }
      }
    });
  for (auto& t : clients) t.join();
  std::uint64_t expected_rows = 0;
  for (int c = 0; c < kClients; ++c)
    for (int k = 0; k < kCalls; ++k) expected_rows += 1 + (k + c) % 5;
  EXPECT_EQ(server.rows_served(), expected_rows);
  EXPECT_LE(max_seen_batch.load(), opt.max_batch);
  // Four clients that always wait for their answer are served together: fewer calls than requests.
  EXPECT_LT(server.batches(), static_cast<std::uint64_t>(kClients * kCalls));
}

TEST(RuntimeBatchingServer, HandlerErrorsReachTheCallerAndStopReleases) {
  BatchingServer server(1, 1, [](ConstBytes in, std::int64_t, Bytes out) {
    if (in[0] == std::byte{13}) throw UserError("bad row");
    out[0] = in[0];
  });
  std::byte in{13}, out{0};
  EXPECT_THROW(server.evaluate({&in, 1}, 1, {&out, 1}), UserError);
  in = std::byte{7};
  EXPECT_TRUE(server.evaluate({&in, 1}, 1, {&out, 1})) << "the server survives a handler error";
  EXPECT_EQ(out, std::byte{7});
  server.stop();
  EXPECT_FALSE(server.evaluate({&in, 1}, 1, {&out, 1}));
  EXPECT_THROW(BatchingServer(1, 1, nullptr, BatchingOptions{0, 0, 0}), UserError);
}

}  // namespace
}  // namespace rlzoo
