#include "envs/mujoco/egl_display.h"

#include <dlfcn.h>

#include <cstring>
#include <type_traits>
#include <vector>

namespace rlzoo::egl {

EglApi g_egl{};  // filled once by load_egl(), before any other use

namespace {


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

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

// ---- the process-wide EGL display ------------------------------------------------------------



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


}  // namespace

std::string egl_failure(const char* call) { return std::string(call) + " failed (" + egl_error_name(g_egl.GetError()) + ")"; }

const Display& shared_display() {
  static const Display display = open_display();  // thread-safe; EGL itself is thread-safe
  return display;
}

}  // namespace rlzoo::egl
