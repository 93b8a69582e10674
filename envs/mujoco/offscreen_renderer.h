// Headless rendering of a MuJoCo model to RGB frames (for `rlzoo enjoy --record DIR`), through
// EGL: no window system and no X display. With Mesa (libegl-mesa0, libgl1-mesa-dri) it renders
// in software (llvmpipe); with a GPU driver that provides EGL it renders on the GPU.
//
//   OffscreenRenderer r(model->get(), 640, 480);
//   std::vector<std::uint8_t> rgb(r.width() * r.height() * 3);
//   r.render(data, rgb);                       // top row first
//   write_png("frame.png", r.width(), r.height(), rgb);
//
// The camera: the model's camera named "track" when it has one (Gymnasium's locomotion robots
// follow their centre of mass with it), else MuJoCo's free camera looking at the model centre
// (mjv_defaultFreeCamera, from the model's <visual><global azimuth elevation>).
//
// The frame size is what is asked, whatever the model's <visual><global offwidth offheight>
// (the offscreen buffer is sized to the request; the model is not changed). A size beyond the
// OpenGL implementation's renderbuffer limit fails in the constructor.
//
// EGL: libEGL.so.1 is loaded at run time (dlopen), so building needs no EGL headers or
// libraries and a machine without EGL only loses rendering (unavailable_reason() says why).
// The display is opened once per process and never closed: a GPU EGL device first
// (EGL_EXT_platform_device, e.g. NVIDIA's driver), else Mesa's surfaceless platform, else a
// software EGL device, else the default display. Each renderer has its own OpenGL context, made
// current only inside the constructor, render() and the destructor (the calling thread's
// previous EGL binding is restored after), so a renderer can move between threads but must be
// used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

struct mjModel_;
typedef struct mjModel_ mjModel;
struct mjData_;
typedef struct mjData_ mjData;

namespace rlzoo {

class OffscreenRenderer {
 public:
  // Throws UserError with the reason (the failing EGL or MuJoCo call and its error) when no
  // OpenGL context can be made. `m` must outlive the renderer.
  OffscreenRenderer(const mjModel* m, int width, int height);
  ~OffscreenRenderer();
  OffscreenRenderer(const OffscreenRenderer&) = delete;
  OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

  int width() const;
  int height() const;
  // The OpenGL renderer, version and EGL display in use, e.g. "llvmpipe (LLVM 15.0.6, 256 bits),
  // OpenGL 4.5 (Compatibility Profile) Mesa 22.3.6, Mesa surfaceless platform" (llvmpipe is
  // software rendering).
  const std::string& description() const;

  // Renders `d` (of the constructor's model) into rgb_out: width*height*3 bytes, top row first.
  // mjv_updateScene borrows d's scratch stack for the call (the state is not changed), so no
  // other thread may use `d` meanwhile. Throws UserError when an OpenGL call fails.
  void render(const mjData* d, std::span<std::uint8_t> rgb_out);

  // Why a renderer cannot be made here (the message its constructor would throw), or nullopt
  // when it can. Probes once per process with a 1x1 context; never throws.
  static std::optional<std::string> unavailable_reason();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rlzoo
