"""Repository-wide pytest configuration.

Hypothesis runs derandomized (see below), so the test suite is deterministic like the chapters.

nbval runs each chapter notebook in a Jupyter kernel. By default kernels talk to pytest over TCP
on 127.0.0.1, which does not exist in a sandbox without any network (for example
``unshare -n pytest``). On POSIX systems we switch the kernels to the IPC transport (Unix-domain
sockets), so the whole suite — unit tests and notebooks — runs with no network interface at all.
"""

import atexit
import os
import shutil
import tempfile

try:
    from hypothesis import settings
except ImportError:  # the chapters-from-an-empty-directory run needs only nbval
    settings = None

if settings is not None:
    # Property tests draw the same examples on every run and every machine (a test run twice prints the same
    # result; a failure in CI reproduces locally). HYPOTHESIS_PROFILE=explore draws fresh examples instead.
    settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
    settings.register_profile("explore", deadline=None, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

if os.name == "posix":
    import jupyter_client.manager
    import nbval.kernel

    class _IPCKernelManager(jupyter_client.manager.KernelManager):
        def __init__(self, **kwargs):
            kwargs.setdefault("transport", "ipc")
            # An absolute socket path: nbval starts the kernel in the notebook's folder, so a
            # relative path would name different sockets for the kernel and for pytest.
            socket_dir = tempfile.mkdtemp(prefix="nbval-")
            atexit.register(shutil.rmtree, socket_dir, ignore_errors=True)
            kwargs.setdefault("ip", os.path.join(socket_dir, "kernel"))
            super().__init__(**kwargs)

    nbval.kernel.KernelManager = _IPCKernelManager
