// test_golden.cpp — whole models against an independent implementation: tests/golden/*.h5 hold a
// PyTorch float64 training-mode forward, loss and backward of tiny U-Nets and a tiny VGG (see
// tests/golden/README.md). Here our Model is built from the file's spec string, the file's weights
// are copied in by parameter name, and logits, loss and every parameter gradient are compared, once
// with the reference kernels and once with the BLAS path. Needs no Python; a missing file fails.
// Tolerances: logits and each gradient tensor by max |ours − torch| / max |torch| over the tensor
// (≤ 1e-4); the loss by relative difference (≤ 1e-5).
// Deliberately not here: dropout, eval mode, optimiser steps (PyTorch files do not cover them).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "models/loss.h"
#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

// Closes an HDF5 handle with the matching function when it goes out of scope.
class H5Handle {
 public:
  H5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~H5Handle() {
    if (id_ >= 0) close_(id_);
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

std::string read_string_attr(hid_t loc, const char* name) {
  H5Handle a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) throw Error(std::string("missing attribute ") + name);
  H5Handle file_type(H5Aget_type(a.get()), H5Tclose);
  H5Handle mem_type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (H5Tis_variable_str(file_type.get()) > 0) {
    H5Tset_size(mem_type.get(), H5T_VARIABLE);
    H5Tset_cset(mem_type.get(), H5Tget_cset(file_type.get()));
    char* s = nullptr;
    if (H5Aread(a.get(), mem_type.get(), &s) < 0 || !s) throw Error(std::string("cannot read attribute ") + name);
    std::string out(s);
    H5free_memory(s);
    return out;
  }
  const std::size_t size = H5Tget_size(file_type.get());
  std::string buf(size, '\0');
  H5Tset_size(mem_type.get(), size);
  if (H5Aread(a.get(), mem_type.get(), buf.data()) < 0) throw Error(std::string("cannot read attribute ") + name);
  return buf.substr(0, buf.find('\0'));
}

template <class T>
std::vector<T> read_attr(hid_t loc, const char* name, hid_t mem_type) {
  H5Handle a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) throw Error(std::string("missing attribute ") + name);
  H5Handle space(H5Aget_space(a.get()), H5Sclose);
  std::vector<T> v(std::size_t(H5Sget_simple_extent_npoints(space.get())));
  if (H5Aread(a.get(), mem_type, v.data()) < 0) throw Error(std::string("cannot read attribute ") + name);
  return v;
}

// Reads a whole dataset converted to mem_type; its dimensions go to *dims.
template <class T>
std::vector<T> read_dataset(hid_t file, const std::string& path, hid_t mem_type, Shape* dims) {
  H5Handle d(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) throw Error("missing dataset " + path);
  H5Handle space(H5Dget_space(d.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> h(std::size_t(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space.get(), h.data(), nullptr);
  dims->assign(h.begin(), h.end());
  std::vector<T> v(std::size_t(numel(*dims)));
  if (H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) throw Error("cannot read " + path);
  return v;
}

hsize_t group_size(hid_t file, const char* path) {
  H5Handle g(H5Gopen2(file, path, H5P_DEFAULT), H5Gclose);
  if (!g.ok()) throw Error(std::string("missing group ") + path);
  H5G_info_t info;
  H5Gget_info(g.get(), &info);
  return info.nlinks;
}

struct GoldenCase {
  std::string file;
  bool reference;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.file << (c.reference ? " reference" : " blas"); }

class Golden : public ::testing::TestWithParam<GoldenCase> {
 protected:
  static void SetUpTestSuite() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }  // errors come as Error
};

TEST_P(Golden, MatchesPyTorch) {
  const auto& gc = GetParam();
  const std::string path = std::string(SB_SOURCE_DIR) + "/tests/golden/" + gc.file;
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: it is committed; regenerate it with "
                                             << "/usr/bin/python3 tests/golden/make_golden.py";
  H5Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(f.ok()) << "cannot open " << path;
  const hid_t file = f.get();

  const std::string spec = read_string_attr(file, "spec");
  const int classes = read_attr<std::int32_t>(file, "classes", H5T_NATIVE_INT32).at(0);
  const double want_loss = read_attr<double>(file, "loss", H5T_NATIVE_DOUBLE).at(0);
  std::vector<float> class_weights;
  if (H5Aexists(file, "class_weights") > 0) class_weights = read_attr<float>(file, "class_weights", H5T_NATIVE_FLOAT);
  Shape in_shape, label_dims, logit_dims;
  auto x = read_dataset<float>(file, "input", H5T_NATIVE_FLOAT, &in_shape);
  const auto labels_full = read_dataset<std::int32_t>(file, "labels", H5T_NATIVE_INT32, &label_dims);
  const auto want_logits = read_dataset<double>(file, "logits", H5T_NATIVE_DOUBLE, &logit_dims);
  ASSERT_EQ(in_shape.size(), 4u);

  auto model = test::make_model(spec, {int(in_shape[1]), int(in_shape[2]), int(in_shape[3]), classes}, 1);
  ASSERT_EQ(model->setup(in_shape), logit_dims) << spec;

  // Every parameter of our model comes from the file, and the file holds no others.
  ASSERT_EQ(group_size(file, "params"), model->param_info().size()) << spec;
  float* params = model->params().f32();
  for (const auto& info : model->param_info()) {
    Shape dims;
    const auto w = read_dataset<float>(file, "params/" + info.name, H5T_NATIVE_FLOAT, &dims);
    ASSERT_EQ(dims, info.shape) << info.name;
    std::copy(w.begin(), w.end(), params + info.offset);
  }

  Ctx ctx;
  ctx.reference = gc.reference;
  const Tensor xt = Tensor::view(x.data(), in_shape);
  const Tensor& logits = model->forward(ctx, xt, /*training=*/true);
  const std::vector<float> got_logits(logits.f32(), logits.f32() + logits.numel());
  const double logit_err = test::rel_err(got_logits, want_logits);
  EXPECT_LE(logit_err, 1e-4) << "logits";

  std::vector<std::int32_t> labels = labels_full;
  if (label_dims.size() == 3)  // U-Net: labels at the input's size, the loss sees the centred window
    labels = center_crop_labels(labels_full.data(), int(label_dims[0]), int(label_dims[1]), int(label_dims[2]),
                                int(logit_dims[2]), int(logit_dims[3]));
  Tensor dlogits;
  const double loss = softmax_cross_entropy(logits, labels.data(), class_weights, &dlogits);
  EXPECT_NEAR(loss, want_loss, 1e-5 * std::abs(want_loss)) << "loss";

  model->grads().fill(NAN);
  model->backward(ctx, dlogits);
  const float* grads = model->grads().f32();
  double worst = 0;
  std::string worst_name;
  for (const auto& info : model->param_info()) {
    Shape dims;
    const auto want = read_dataset<double>(file, "grads/" + info.name, H5T_NATIVE_DOUBLE, &dims);
    ASSERT_EQ(dims, info.shape) << info.name;
    const std::vector<float> got(grads + info.offset, grads + info.offset + numel(info.shape));
    const double err = test::rel_err(got, want);
    EXPECT_LE(err, 1e-4) << info.name << ": max |torch grad| = " << test::max_abs(want);
    EXPECT_GT(test::max_abs(want), 0.0) << info.name << ": an all-zero reference gradient checks nothing";
    if (err > worst) worst = err, worst_name = info.name;
  }
  std::printf("[ golden   ] %s (%s): logits %.2e, loss %.2e, worst gradient %.2e (%s)\n", gc.file.c_str(),
              gc.reference ? "reference" : "blas", logit_err, std::abs(loss - want_loss) / std::abs(want_loss),
              worst, worst_name.c_str());
}

INSTANTIATE_TEST_SUITE_P(Files, Golden,
                         ::testing::Values(GoldenCase{"unet_tiny.h5", true}, GoldenCase{"unet_tiny.h5", false},
                                           GoldenCase{"unet_valid_tiny.h5", true},
                                           GoldenCase{"unet_valid_tiny.h5", false}, GoldenCase{"vgg_tiny.h5", true},
                                           GoldenCase{"vgg_tiny.h5", false}),
                         [](const auto& info) {
                           std::string n = info.param.file.substr(0, info.param.file.find('.'));
                           return n + (info.param.reference ? "_ref" : "_blas");
                         });

}  // namespace
}  // namespace scalebench
