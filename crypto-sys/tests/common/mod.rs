//! Helpers shared by the known-answer test files: owned OpenSSL objects and status checks.

use core::ffi::c_int;
use crypto_sys as ffi;

/// An owned OpenSSL object, released with its matching `*_free` function on drop.
pub struct Owned<T>(pub *mut T, unsafe extern "C" fn(*mut T));

impl<T> Owned<T> {
    pub fn new(ptr: *mut T, free: unsafe extern "C" fn(*mut T)) -> Option<Self> {
        (!ptr.is_null()).then_some(Self(ptr, free))
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: `self.0` is non-null, owned by us, and `self.1` is its destructor.
        unsafe { (self.1)(self.0) }
    }
}

/// Maps an OpenSSL status (1 = success) to `Option`.
pub fn ok(rc: c_int) -> Option<()> {
    (rc == 1).then_some(())
}

/// Empties this thread's OpenSSL error queue (expected failures leave entries in it).
pub fn clear_errors() {
    // SAFETY: no arguments; only touches thread-local error state.
    unsafe { ffi::ERR_clear_error() }
}
