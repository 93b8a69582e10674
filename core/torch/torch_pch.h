// Precompiled header shared by every target that uses LibTorch (saves ~10 s per TU).
#pragma once
#include <torch/torch.h>
