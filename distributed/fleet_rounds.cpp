#include "distributed/fleet_rounds.h"

#include <algorithm>

namespace rlzoo {

struct FleetRounds::Stream {
  grpc::ServerContext ctx;
  grpc::ServerAsyncReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer> rw{&ctx};
  grpc::ByteBuffer in, out;
  bool started = false;   // accepted: a call, not just a request for one
  bool waiting = false;   // for parameters: `request` and `upload_reply` are held until answered
  bool pending = false;   // a read, write or finish is in flight
  bool last = false;      // the reply being written tells the actor that training is over
  fleet::ParametersRequest request;
  bool has_upload = false;
  fleet::UploadReply upload_reply;
  FleetClock::time_point deadline;
  Tag accepted{this, Op::accept}, read{this, Op::read}, written{this, Op::write}, finished{this, Op::finish};
};

namespace {

gpr_timespec to_gpr(FleetClock::time_point t) {
  const auto left = std::max(t - FleetClock::now(), FleetClock::duration::zero());
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_nanos(ns, GPR_TIMESPAN));
}

// A slice over `bytes` that keeps them alive while gRPC holds it.
grpc::Slice shared_slice(const std::shared_ptr<const std::string>& bytes) {
  auto* keep = new std::shared_ptr<const std::string>(bytes);
  return grpc::Slice(const_cast<char*>(bytes->data()), bytes->size(),
                     [](void* p) { delete static_cast<std::shared_ptr<const std::string>*>(p); }, keep);
}

}  // namespace

FleetRounds::FleetRounds(GrpcFleet::State& state, FleetServiceBase& service,
                         std::unique_ptr<grpc::ServerCompletionQueue> cq)
    : state_(state), service_(service), cq_(std::move(cq)) {
  {
    std::lock_guard lock(state_.wake_mutex);
    state_.wake_learner = [this] {  // under wake_mutex
      if (alarm_) return;           // one already on its way
      alarm_ = std::make_unique<grpc::Alarm>();
      alarm_->Set(cq_.get(), gpr_now(GPR_CLOCK_MONOTONIC), &wake_tag_);
    };
  }
  accept_next();
}

FleetRounds::~FleetRounds() { close(); }

void FleetRounds::accept_next() {
  auto s = std::make_unique<Stream>();
  s->pending = true;
  service_.RequestRounds(&s->ctx, &s->rw, cq_.get(), cq_.get(), &s->accepted);
  streams_.push_back(std::move(s));
}

void FleetRounds::poll(FleetClock::time_point until, const Take& take) {
  answer_ready();
  if (!next_event(to_gpr(until), take)) return;
  while (next_event(gpr_time_0(GPR_CLOCK_MONOTONIC), take)) {
  }
}

bool FleetRounds::next_event(gpr_timespec deadline, const Take& take) {
  void* tag = nullptr;
  bool ok = false;
  if (cq_->AsyncNext(&tag, &ok, deadline) != grpc::CompletionQueue::GOT_EVENT) return false;
  handle(*static_cast<const Tag*>(tag), ok, take);
  return true;
}

void FleetRounds::handle(const Tag& tag, bool ok, const Take& take) {
  if (tag.op == Op::wake) {
    std::lock_guard lock(state_.wake_mutex);
    alarm_.reset();  // the caller looks at the queue next
    return;
  }
  Stream& s = *tag.stream;
  s.pending = false;
  switch (tag.op) {
    case Op::accept:
      if (!ok) break;  // the server is shutting down
      s.started = true;
      if (!ending_) accept_next();
      if (const grpc::Status st = authenticate(state_, s.ctx); !st.ok()) return finish(s, st);
      if (ending_) return finish(s, grpc::Status(grpc::StatusCode::UNAVAILABLE, "the learner has finished"));
      {
        std::lock_guard lock(state_.mutex);
        ++state_.stats.streams;
      }
      s.pending = true;
      s.rw.Read(&s.in, &s.read);
      return;
    case Op::read:
      if (!ok) return finish(s, grpc::Status::OK);  // the actor closed it, or it broke
      return on_message(s, take);
    case Op::write:
      if (!ok || s.last || ending_) return finish(s, grpc::Status::OK);
      s.pending = true;
      s.rw.Read(&s.in, &s.read);
      return;
    case Op::finish:
    case Op::wake:
      break;
  }
  // Nothing is in flight on it any more: forget it.
  std::erase_if(streams_, [&](const std::unique_ptr<Stream>& p) { return p.get() == &s; });
}

// One round's message: the upload (if any), as Upload takes it, then the request for parameters,
// answered as GetParameters would: at once when they are ready, else when they are (answer_ready).
void FleetRounds::on_message(Stream& s, const Take& take) {
  fleet::RoundsRequest req;
  if (!grpc::SerializationTraits<fleet::RoundsRequest>::Deserialize(&s.in, &req).ok())
    return finish(s, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a Rounds message that does not parse"));
  s.has_upload = req.has_upload();
  s.upload_reply.Clear();
  if (s.has_upload)
    receive_upload(state_, req.upload(), &s.upload_reply, [&](FleetQueued& q) {
      take(std::move(q));
      return std::string();
    });
  s.request = req.parameters();
  const std::int64_t wait = std::clamp<std::int64_t>(s.request.wait_ms(), 0, state_.options.max_wait_ms);
  if (s.request.learner_run() == state_.learner_run && !state_.finished) {
    state_.touch(s.request.run_id());
    // Waiting, this actor does not count as collecting (round_needs_more).
    if (wait > 0) state_.set_collecting(s.request.run_id(), false);
  }
  s.waiting = true;
  s.deadline = FleetClock::now() + std::chrono::milliseconds(wait);
  if (wait == 0 || parameters_ready(state_, s.request)) answer(s);
}

void FleetRounds::answer_ready() {
  const auto now = FleetClock::now();
  for (auto& s : streams_)
    if (s->waiting && (now >= s->deadline || parameters_ready(state_, s->request))) answer(*s);
}

void FleetRounds::answer(Stream& s) {
  s.waiting = false;
  fleet::RoundsReply head;
  if (s.has_upload) head.mutable_upload()->Swap(&s.upload_reply);
  const auto newest = answer_parameters(state_, s.request, head.mutable_parameters());
  const std::shared_ptr<const std::string> parameters = newest ? state_.parameters_wire(newest) : nullptr;
  s.last = head.parameters().finished();
  // The reply's bytes: this reply's own fields, then the parameters' shared ones. Protobuf reads
  // a message field that occurs twice as the two merged, and the two set different fields.
  const grpc::Slice slices[2] = {grpc::Slice(head.SerializeAsString()),
                                 parameters ? shared_slice(parameters) : grpc::Slice()};
  s.out = grpc::ByteBuffer(slices, parameters ? 2 : 1);
  s.pending = true;
  s.rw.Write(s.out, &s.written);
}

void FleetRounds::finish(Stream& s, const grpc::Status& status) {
  s.waiting = false;
  s.pending = true;
  s.rw.Finish(status, &s.finished);
}

void FleetRounds::end_streams(std::chrono::milliseconds grace) {
  ending_ = true;
  for (auto& s : streams_) {
    if (!s->started) continue;
    if (!s->pending)
      finish(*s, grpc::Status(grpc::StatusCode::UNAVAILABLE, "the learner has finished"));
    else
      s->ctx.TryCancel();  // its read or write comes back failed, then it is finished
  }
  const auto until = FleetClock::now() + grace;
  const Take drop = [](FleetQueued&&) {};
  while (FleetClock::now() < until &&
         std::any_of(streams_.begin(), streams_.end(), [](const auto& s) { return s->started; }))
    next_event(to_gpr(std::min(until, FleetClock::now() + std::chrono::milliseconds(20))), drop);
}

void FleetRounds::close() {
  if (closed_) return;
  closed_ = true;
  {
    std::lock_guard lock(state_.wake_mutex);
    state_.wake_learner = nullptr;
  }
  cq_->Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq_->Next(&tag, &ok)) {
  }
  alarm_.reset();
  streams_.clear();
}

}  // namespace rlzoo
