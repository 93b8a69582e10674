#include "envs/mujoco/offscreen_renderer.h"

#include <dlfcn.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstdint>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/common/error.h"
#include "envs/mujoco/egl_display.h"

namespace rlzoo {

using namespace egl;

namespace {

// ---- MuJoCo errors ----------------------------------------------------------------------------
// mju_error (e.g. mjr_makeContext without a usable framebuffer) calls mju_user_error when it is
// set and otherwise prints and exits the process. Around our calls the handler jumps back to
// guarded() with the message; calls on other threads meanwhile go to the previous handler (or
// get MuJoCo's default behaviour).

thread_local std::jmp_buf* t_jump = nullptr;
thread_local char t_message[1024];
void (*g_previous_handler)(const char*) = nullptr;
std::mutex g_handler_mutex;
int g_handler_users = 0;

extern "C" void jump_on_mujoco_error(const char* msg) {
  if (t_jump) {
    std::snprintf(t_message, sizeof t_message, "%s", msg);
    std::longjmp(*t_jump, 1);
  }
  if (g_previous_handler) {
    g_previous_handler(msg);
    return;
  }
  std::fprintf(stderr, "MuJoCo error: %s\n", msg);
  std::exit(EXIT_FAILURE);
}

// Runs fn(arg) (a MuJoCo call without C++ objects on its frames); false with the message in
// t_message when it raised mju_error. Kept free of C++ objects with destructors (longjmp).
bool call_catching_mujoco_errors(void (*fn)(void*), void* arg) {
  std::jmp_buf jump;
  std::jmp_buf* const outer = t_jump;
  if (setjmp(jump) != 0) {
    t_jump = outer;
    return false;
  }
  t_jump = &jump;
  fn(arg);
  t_jump = outer;
  return true;
}

// "" or MuJoCo's message for the lambda `f` (captureless call through a trampoline).
template <typename F>
std::string guarded(F&& f) {
  {
    std::lock_guard lock(g_handler_mutex);
    if (g_handler_users++ == 0) {
      g_previous_handler = mju_user_error;
      mju_user_error = jump_on_mujoco_error;
    }
  }
  const bool ok = call_catching_mujoco_errors([](void* p) { (*static_cast<F*>(p))(); }, &f);
  {
    std::lock_guard lock(g_handler_mutex);
    if (--g_handler_users == 0) {
      mju_user_error = g_previous_handler;
      g_previous_handler = nullptr;
    }
  }
  return ok ? std::string() : std::string(t_message);
}

}  // namespace

// ---- OffscreenRenderer ------------------------------------------------------------------------

struct OffscreenRenderer::Impl {
  const mjModel* model = nullptr;
  int width = 0;
  int height = 0;
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  bool have_scene = false;
  bool have_mujoco_context = false;
  mjvScene scene;
  mjvCamera camera;
  mjvOption option;
  mjrContext con;
  std::string description;

  void release() {
    if (context != EGL_NO_CONTEXT) {
      {
        ScopedCurrent current(display, surface, context);
        if (current.ok() && have_mujoco_context) mjr_freeContext(&con);
      }
      g_egl.DestroyContext(display, context);
      context = EGL_NO_CONTEXT;
    }
    if (have_scene) mjv_freeScene(&scene);
    have_scene = false;
    have_mujoco_context = false;
    if (surface != EGL_NO_SURFACE) g_egl.DestroySurface(display, surface);
    surface = EGL_NO_SURFACE;
  }
};

OffscreenRenderer::OffscreenRenderer(const mjModel* m, int width, int height) : impl_(std::make_unique<Impl>()) {
  RLZOO_CHECK(m != nullptr);
  if (width < 1 || height < 1)
    throw UserError("offscreen rendering: the frame size must be positive (got " + std::to_string(width) + "x" +
                    std::to_string(height) + ")");
  Impl& s = *impl_;
  s.model = m;
  s.width = width;
  s.height = height;

  const Display& shared = shared_display();
  if (shared.display == EGL_NO_DISPLAY) throw UserError(shared.error);
  s.display = shared.display;

  const auto fail = [&](const std::string& why) {
    s.release();
    throw UserError(std::string(kNeeds) + ": " + why);
  };
  const EGLenum previous_api = g_egl.QueryAPI();
  g_egl.BindAPI(EGL_OPENGL_API);
  s.context = g_egl.CreateContext(s.display, shared.config, EGL_NO_CONTEXT, nullptr);
  const std::string create_error = s.context == EGL_NO_CONTEXT ? egl_failure("eglCreateContext") : "";
  g_egl.BindAPI(previous_api);
  if (!create_error.empty()) fail(create_error);
  if (!shared.surfaceless) {
    const EGLint attributes[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    s.surface = g_egl.CreatePbufferSurface(s.display, shared.config, attributes);
    if (s.surface == EGL_NO_SURFACE) fail(egl_failure("eglCreatePbufferSurface"));
  }

  mjv_defaultCamera(&s.camera);
  const int track = mj_name2id(m, mjOBJ_CAMERA, "track");
  if (track >= 0) {
    s.camera.type = mjCAMERA_FIXED;
    s.camera.fixedcamid = track;
  } else {
    mjv_defaultFreeCamera(m, &s.camera);
  }
  mjv_defaultOption(&s.option);
  mjv_defaultScene(&s.scene);
  mjr_defaultContext(&s.con);

  std::string error;
  {
    ScopedCurrent current(s.display, s.surface, s.context);
    if (!current.ok()) fail(current.error());
    // mjr_makeContext sizes the offscreen framebuffer from the model's visual settings: give it
    // a shallow copy (the same arrays) asking for this frame size.
    mjModel sized = *m;
    sized.vis.global.offwidth = width;
    sized.vis.global.offheight = height;
    error = guarded([&] { mjv_makeScene(m, &s.scene, 2000); });
    if (error.empty()) {
      s.have_scene = true;
      error = guarded([&] { mjr_makeContext(&sized, &s.con, mjFONTSCALE_150); });
      s.have_mujoco_context = true;  // freed even when it failed half-way (mjr_freeContext skips what is absent)
    }
    if (error.empty()) error = guarded([&] { mjr_setBuffer(mjFB_OFFSCREEN, &s.con); });
    if (error.empty() && s.con.currentBuffer != mjFB_OFFSCREEN)
      error = "MuJoCo could not select its offscreen framebuffer";
    using GetString = const unsigned char* (*)(unsigned);  // glGetString
    if (const auto get_string = reinterpret_cast<GetString>(g_egl.GetProcAddress("glGetString"))) {
      const auto text = [&](unsigned what) {
        const unsigned char* v = get_string(what);
        return v ? std::string(reinterpret_cast<const char*>(v)) : std::string("?");
      };
      s.description = text(0x1F01 /*GL_RENDERER*/) + ", OpenGL " + text(0x1F02 /*GL_VERSION*/) + ", " + shared.name;
    }
    if (error.empty() && (s.con.offWidth < width || s.con.offHeight < height))
      error = "MuJoCo's offscreen framebuffer is " + std::to_string(s.con.offWidth) + "x" +
              std::to_string(s.con.offHeight) + ", smaller than the frame";
  }
  if (!error.empty()) {
    s.release();
    throw UserError("offscreen rendering: MuJoCo cannot make its OpenGL context for a " + std::to_string(width) +
                    "x" + std::to_string(height) + " frame with " +
                    (s.description.empty() ? shared.name : s.description) + ": " + error);
  }
}

OffscreenRenderer::~OffscreenRenderer() { impl_->release(); }

int OffscreenRenderer::width() const { return impl_->width; }
int OffscreenRenderer::height() const { return impl_->height; }
const std::string& OffscreenRenderer::description() const { return impl_->description; }

void OffscreenRenderer::render(const mjData* d, std::span<std::uint8_t> rgb_out) {
  Impl& s = *impl_;
  RLZOO_CHECK(d != nullptr);
  const std::size_t stride = static_cast<std::size_t>(s.width) * 3;
  RLZOO_CHECK(rgb_out.size() == stride * s.height, "render: rgb_out must hold width*height*3 bytes");
  ScopedCurrent current(s.display, s.surface, s.context);
  if (!current.ok()) throw UserError("offscreen rendering failed: " + current.error());
  const mjrRect viewport = {0, 0, s.width, s.height};
  const std::string error = guarded([&] {
    mjv_updateScene(s.model, const_cast<mjData*>(d), &s.option, nullptr, &s.camera, mjCAT_ALL, &s.scene);
    mjr_setBuffer(mjFB_OFFSCREEN, &s.con);
    mjr_render(viewport, &s.scene, &s.con);
    mjr_readPixels(rgb_out.data(), nullptr, viewport, &s.con);
  });
  if (!error.empty()) throw UserError("offscreen rendering failed: " + error);
  // OpenGL's rows run bottom to top.
  std::vector<std::uint8_t> row(stride);
  for (int y = 0; y < s.height / 2; ++y) {
    std::uint8_t* top = rgb_out.data() + y * stride;
    std::uint8_t* bottom = rgb_out.data() + (s.height - 1 - y) * stride;
    std::memcpy(row.data(), top, stride);
    std::memcpy(top, bottom, stride);
    std::memcpy(bottom, row.data(), stride);
  }
}

std::optional<std::string> OffscreenRenderer::unavailable_reason() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
    try {
      const Display& shared = shared_display();
      if (shared.display == EGL_NO_DISPLAY) return shared.error;
      char error[1000] = "";
      mjModel* m = nullptr;
      {
        auto vfs = std::make_unique<mjVFS>();
        mj_defaultVFS(vfs.get());
        const std::string xml = "<mujoco><worldbody><geom size=\"1\"/></worldbody></mujoco>";
        if (mj_makeEmptyFileVFS(vfs.get(), "probe.xml", static_cast<int>(xml.size())) != 0)
          return std::string("offscreen rendering: cannot make MuJoCo's probe model");
        std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "probe.xml")], xml.data(), xml.size());
        m = mj_loadXML("probe.xml", vfs.get(), error, sizeof error);
        mj_deleteVFS(vfs.get());
      }
      if (!m) return std::string("offscreen rendering: MuJoCo's probe model does not load: ") + error;
      std::optional<std::string> why;
      try {
        OffscreenRenderer probe(m, 1, 1);
      } catch (const std::exception& e) {
        why = e.what();
      }
      mj_deleteModel(m);
      return why;
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  }();
  return reason;
}

}  // namespace rlzoo
