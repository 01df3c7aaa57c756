//===- Stream.h - Which stream gnnrt's CUDA kernels run on ------*- C++ -*-===//
//
// The kernels of gnnrt::kernels::cuda keep the CPU kernels' signatures, so
// they take no stream argument: they queue their work on the calling host
// thread's current stream, the default stream unless a StreamScope says
// otherwise (as PyTorch's current stream does). A trainer copies the next
// batch on one Stream while the step runs on another.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_STREAM_H
#define GNNRT_KERNELS_CUDA_STREAM_H

struct CUstream_st;

namespace gnnrt::kernels::cuda {

/// A CUDA runtime stream handle (cudaStream_t).
using StreamHandle = CUstream_st *;

/// An owned, non-blocking stream. Throws DeviceError if CUDA fails.
class Stream {
public:
  Stream();
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  StreamHandle get() const { return handle; }
  /// Waits until everything queued on the stream is done; throws
  /// DeviceError for an error of that work.
  void synchronize() const;

private:
  StreamHandle handle = nullptr;
};

/// While alive, the CUDA kernels this host thread calls run on `stream`;
/// the previous stream is current again afterwards.
class StreamScope {
public:
  explicit StreamScope(StreamHandle stream);
  explicit StreamScope(const Stream &stream) : StreamScope(stream.get()) {}
  ~StreamScope();
  StreamScope(const StreamScope &) = delete;
  StreamScope &operator=(const StreamScope &) = delete;

private:
  StreamHandle previous;
};

/// The stream this host thread's CUDA kernels run on (null: the default).
StreamHandle currentStream();

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_STREAM_H
