// EGL for offscreen rendering, loaded at run time (internal to envs/mujoco): the Khronos types
// and entry points rlzoo uses, the one process-wide display with its OpenGL config, and a guard
// that makes a context current on the calling thread and restores its previous binding.
#pragma once

#include <cstdint>
#include <string>

namespace rlzoo::egl {

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


// The entry points, filled by shared_display() before anything else uses them.
extern EglApi g_egl;
// "<call> failed (<EGL error name>)".
std::string egl_failure(const char* call);

struct Display {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  bool surfaceless = false;  // EGL_KHR_surfaceless_context: no pbuffer needed
  std::string name;          // which display it is, for description()
  std::string error;         // why there is none, when display == EGL_NO_DISPLAY
};
// Opened once per process (thread-safe) and never closed; .error says why when there is none.
const Display& shared_display();

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


}  // namespace rlzoo::egl
