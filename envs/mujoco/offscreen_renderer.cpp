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

namespace rlzoo {

namespace {

const char* const kNeeds = "offscreen rendering needs EGL with a software or GPU OpenGL driver";

// ---- EGL, loaded at run time ------------------------------------------------------------------
// libEGL.so.1 is opened with dlopen, so rlzoo neither links EGL nor needs its headers to build,
// and runs (without rendering) where it is absent. RTLD_GLOBAL: MuJoCo loads its OpenGL
// functions through the eglGetProcAddress it finds in the process.
// The types and enumerants below are the Khronos ones (EGL 1.5, EGL_EXT_platform_device,
// EGL_MESA_platform_surfaceless), as in Khronos' <EGL/egl.h> and <EGL/eglext.h>.

using EGLint = std::int32_t;
using EGLBoolean = unsigned int;
using EGLenum = unsigned int;
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLDeviceEXT = void*;
using EGLNativeDisplayType = void*;

constexpr EGLDisplay EGL_NO_DISPLAY = nullptr;
constexpr EGLContext EGL_NO_CONTEXT = nullptr;
constexpr EGLSurface EGL_NO_SURFACE = nullptr;
constexpr EGLNativeDisplayType EGL_DEFAULT_DISPLAY = nullptr;
constexpr EGLint EGL_SUCCESS = 0x3000;
constexpr EGLint EGL_NOT_INITIALIZED = 0x3001;
constexpr EGLint EGL_BAD_ACCESS = 0x3002;
constexpr EGLint EGL_BAD_ALLOC = 0x3003;
constexpr EGLint EGL_BAD_ATTRIBUTE = 0x3004;
constexpr EGLint EGL_BAD_CONFIG = 0x3005;
constexpr EGLint EGL_BAD_CONTEXT = 0x3006;
constexpr EGLint EGL_BAD_CURRENT_SURFACE = 0x3007;
constexpr EGLint EGL_BAD_DISPLAY = 0x3008;
constexpr EGLint EGL_BAD_MATCH = 0x3009;
constexpr EGLint EGL_BAD_NATIVE_PIXMAP = 0x300A;
constexpr EGLint EGL_BAD_NATIVE_WINDOW = 0x300B;
constexpr EGLint EGL_BAD_PARAMETER = 0x300C;
constexpr EGLint EGL_BAD_SURFACE = 0x300D;
constexpr EGLint EGL_CONTEXT_LOST = 0x300E;
constexpr EGLint EGL_ALPHA_SIZE = 0x3021;
constexpr EGLint EGL_BLUE_SIZE = 0x3022;
constexpr EGLint EGL_GREEN_SIZE = 0x3023;
constexpr EGLint EGL_RED_SIZE = 0x3024;
constexpr EGLint EGL_DEPTH_SIZE = 0x3025;
constexpr EGLint EGL_STENCIL_SIZE = 0x3026;
constexpr EGLint EGL_SURFACE_TYPE = 0x3033;
constexpr EGLint EGL_NONE = 0x3038;
constexpr EGLint EGL_RENDERABLE_TYPE = 0x3040;
constexpr EGLint EGL_EXTENSIONS = 0x3055;
constexpr EGLint EGL_HEIGHT = 0x3056;
constexpr EGLint EGL_WIDTH = 0x3057;
constexpr EGLint EGL_DRAW = 0x3059;
constexpr EGLint EGL_READ = 0x305A;
constexpr EGLint EGL_CLIENT_APIS = 0x308D;
constexpr EGLenum EGL_OPENGL_API = 0x30A2;
constexpr EGLint EGL_PBUFFER_BIT = 0x0001;
constexpr EGLint EGL_OPENGL_BIT = 0x0008;
constexpr EGLenum EGL_PLATFORM_DEVICE_EXT = 0x313F;
constexpr EGLenum EGL_PLATFORM_SURFACELESS_MESA = 0x31DD;

using PFNEGLGETPLATFORMDISPLAYEXTPROC = EGLDisplay (*)(EGLenum, void*, const EGLint*);
using PFNEGLQUERYDEVICESEXTPROC = EGLBoolean (*)(EGLint, EGLDeviceEXT*, EGLint*);
using PFNEGLQUERYDEVICESTRINGEXTPROC = const char* (*)(EGLDeviceEXT, EGLint);

struct EglApi {
  EGLint (*GetError)();
  const char* (*QueryString)(EGLDisplay, EGLint);
  void (*(*GetProcAddress)(const char*))();
  EGLBoolean (*Initialize)(EGLDisplay, EGLint*, EGLint*);
  EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*);
  EGLDisplay (*GetDisplay)(EGLNativeDisplayType);
  EGLBoolean (*BindAPI)(EGLenum);
  EGLenum (*QueryAPI)();
  EGLDisplay (*GetCurrentDisplay)();
  EGLContext (*GetCurrentContext)();
  EGLSurface (*GetCurrentSurface)(EGLint);
  EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
  EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint*);
  EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext);
  EGLSurface (*CreatePbufferSurface)(EGLDisplay, EGLConfig, const EGLint*);
  EGLBoolean (*DestroySurface)(EGLDisplay, EGLSurface);
};

EglApi g_egl{};  // filled once by load_egl(), before any other use

// "" when libEGL is loaded, else why not.
std::string load_egl() {
  void* lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char* e = dlerror();
    return std::string("cannot load libEGL.so.1 (") + (e ? e : "?") + ")";
  }
  std::string missing;
  const auto get = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  get(g_egl.GetError, "eglGetError");
  get(g_egl.QueryString, "eglQueryString");
  get(g_egl.GetProcAddress, "eglGetProcAddress");
  get(g_egl.Initialize, "eglInitialize");
  get(g_egl.ChooseConfig, "eglChooseConfig");
  get(g_egl.GetDisplay, "eglGetDisplay");
  get(g_egl.BindAPI, "eglBindAPI");
  get(g_egl.QueryAPI, "eglQueryAPI");
  get(g_egl.GetCurrentDisplay, "eglGetCurrentDisplay");
  get(g_egl.GetCurrentContext, "eglGetCurrentContext");
  get(g_egl.GetCurrentSurface, "eglGetCurrentSurface");
  get(g_egl.MakeCurrent, "eglMakeCurrent");
  get(g_egl.CreateContext, "eglCreateContext");
  get(g_egl.DestroyContext, "eglDestroyContext");
  get(g_egl.CreatePbufferSurface, "eglCreatePbufferSurface");
  get(g_egl.DestroySurface, "eglDestroySurface");
  if (!missing.empty()) return "libEGL.so.1 lacks " + missing;  // the library stays loaded
  return "";
}

std::string egl_error_name(EGLint e) {
  switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "EGL error 0x%04X", static_cast<unsigned>(e));
      return buf;
    }
  }
}

// "<call> failed (<g_egl.GetError()>)"
std::string egl_failure(const char* call) { return std::string(call) + " failed (" + egl_error_name(g_egl.GetError()) + ")"; }

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

// ---- the process-wide EGL display ------------------------------------------------------------

struct Display {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  bool surfaceless = false;  // EGL_KHR_surfaceless_context: no pbuffer needed
  std::string name;          // which display it is, for description()
  std::string error;         // why there is none, when display == EGL_NO_DISPLAY
};

// Initializes `display` and picks an OpenGL config; "" on success, else the reason (the display
// is left initialized: other users may share it, and terminating is not reference counted).
std::string init_display(EGLDisplay display, const std::string& name, Display& out) {
  if (display == EGL_NO_DISPLAY) return name + ": " + egl_failure("eglGetDisplay");
  EGLint major = 0, minor = 0;
  if (!g_egl.Initialize(display, &major, &minor)) return name + ": " + egl_failure("eglInitialize");
  const char* apis = g_egl.QueryString(display, EGL_CLIENT_APIS);
  if (!has_extension(apis, "OpenGL"))
    return name + ": the EGL driver offers no desktop OpenGL (client APIs: " + (apis ? apis : "?") + ")";
  const EGLint full[] = {EGL_RED_SIZE,     8, EGL_GREEN_SIZE,      8,
                         EGL_BLUE_SIZE,    8, EGL_ALPHA_SIZE,      8,
                         EGL_DEPTH_SIZE,   24, EGL_STENCIL_SIZE,   8,
                         EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                         EGL_NONE};
  const EGLint minimal[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  const bool surfaceless = has_extension(g_egl.QueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context");
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!g_egl.ChooseConfig(display, full, &config, 1, &count)) return name + ": " + egl_failure("eglChooseConfig");
  // MuJoCo draws into its own framebuffer object: with a surfaceless context any OpenGL
  // config will do; without, the config must allow the 1x1 pbuffer made current with it.
  if (count < 1 && surfaceless && !g_egl.ChooseConfig(display, minimal, &config, 1, &count))
    return name + ": " + egl_failure("eglChooseConfig");
  if (count < 1) return name + ": eglChooseConfig found no RGBA8 OpenGL config";
  out.display = display;
  out.config = config;
  out.surfaceless = surfaceless;
  out.name = name;
  return "";
}

Display open_display() {
  Display result;
  if (const std::string e = load_egl(); !e.empty()) {
    result.error = std::string(kNeeds) + ": " + e +
                   " (Debian/Ubuntu packages: libegl1 libegl-mesa0 libgl1-mesa-dri for software rendering)";
    return result;
  }
  std::vector<std::string> errors;
  const char* client = g_egl.QueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);  // null without EGL_EXT_client_extensions
  const auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(g_egl.GetProcAddress("eglGetPlatformDisplayEXT"));
  const auto try_display = [&](EGLDisplay d, const std::string& name) {
    const std::string e = init_display(d, name, result);
    if (!e.empty()) errors.push_back(e);
    return e.empty();
  };

  // GPU devices first (EGL_EXT_platform_device, e.g. NVIDIA's driver), then Mesa's surfaceless
  // platform (a render node, else llvmpipe in software), then software devices, then the
  // default display (which needs a window system).
  std::vector<EGLDeviceEXT> devices;
  if (get_platform_display && has_extension(client, "EGL_EXT_platform_device")) {
    const auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(g_egl.GetProcAddress("eglQueryDevicesEXT"));
    const auto query_device_string =
        reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(g_egl.GetProcAddress("eglQueryDeviceStringEXT"));
    EGLint n = 0;
    if (query_devices && query_devices(0, nullptr, &n) && n > 0) {
      devices.resize(n);
      query_devices(n, devices.data(), &n);
      devices.resize(std::max<EGLint>(n, 0));
    }
    std::vector<EGLDeviceEXT> hardware;
    std::vector<EGLDeviceEXT> software;
    for (EGLDeviceEXT dev : devices) {
      const char* ext = query_device_string ? query_device_string(dev, EGL_EXTENSIONS) : nullptr;
      (has_extension(ext, "EGL_MESA_device_software") ? software : hardware).push_back(dev);
    }
    for (std::size_t i = 0; i < hardware.size(); ++i)
      if (try_display(get_platform_display(EGL_PLATFORM_DEVICE_EXT, hardware[i], nullptr),
                      "EGL device " + std::to_string(i)))
        return result;
    devices = software;
  }
  if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless")) {
    if (try_display(get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
                    "Mesa surfaceless platform"))
      return result;
  } else {
    errors.push_back("no Mesa surfaceless platform (EGL_MESA_platform_surfaceless)");
  }
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (try_display(get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr),
                    "software EGL device " + std::to_string(i)))
      return result;
  if (try_display(g_egl.GetDisplay(EGL_DEFAULT_DISPLAY), "default display")) return result;

  std::string joined;
  for (const auto& e : errors) joined += (joined.empty() ? "" : "; ") + e;
  result.error = std::string(kNeeds) + ": " + joined +
                 " (Debian/Ubuntu packages: libegl1 libegl-mesa0 libgl1-mesa-dri for software rendering)";
  return result;
}

const Display& shared_display() {
  static const Display display = open_display();  // thread-safe; EGL itself is thread-safe
  return display;
}

// ---- the calling thread's EGL binding, saved and restored around our work ---------------------

class ScopedCurrent {
 public:
  // Makes (display, surface, context) current with the OpenGL API bound; `ok()` tells whether it
  // took, `error()` why not.
  ScopedCurrent(EGLDisplay display, EGLSurface surface, EGLContext context)
      : previous_api_(g_egl.QueryAPI()) {
    g_egl.BindAPI(EGL_OPENGL_API);
    previous_display_ = g_egl.GetCurrentDisplay();
    previous_context_ = g_egl.GetCurrentContext();
    previous_draw_ = g_egl.GetCurrentSurface(EGL_DRAW);
    previous_read_ = g_egl.GetCurrentSurface(EGL_READ);
    display_ = display;
    switched_ = previous_context_ != context;
    if (switched_ && !g_egl.MakeCurrent(display, surface, surface, context)) {
      error_ = egl_failure("eglMakeCurrent");
      switched_ = false;
    }
  }
  ~ScopedCurrent() {
    if (switched_) {
      if (previous_context_ != EGL_NO_CONTEXT)
        g_egl.MakeCurrent(previous_display_, previous_draw_, previous_read_, previous_context_);
      else
        g_egl.MakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    }
    g_egl.BindAPI(previous_api_);
  }
  ScopedCurrent(const ScopedCurrent&) = delete;
  ScopedCurrent& operator=(const ScopedCurrent&) = delete;
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  EGLenum previous_api_;
  EGLDisplay previous_display_ = EGL_NO_DISPLAY;
  EGLContext previous_context_ = EGL_NO_CONTEXT;
  EGLSurface previous_draw_ = EGL_NO_SURFACE;
  EGLSurface previous_read_ = EGL_NO_SURFACE;
  EGLDisplay display_ = EGL_NO_DISPLAY;
  bool switched_ = false;
  std::string error_;
};

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
