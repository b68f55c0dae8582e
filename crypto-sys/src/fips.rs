//! FIPS mode through the FIPS provider module this build linked (the `fips` feature): the
//! module loaded into the default library context with its configuration, then `fips=yes`
//! made every fetch's default property, so that no algorithm comes from another provider.

use crate::{OSSL_LIB_CTX, OSSL_PARAM, OSSL_PROVIDER};
use std::ffi::{c_char, c_int, c_ulong, CString};
use std::fmt;
use std::path::Path;

prefixed_extern! {
    fn OSSL_PROVIDER_set_default_search_path(libctx: *mut OSSL_LIB_CTX, path: *const c_char)
        -> c_int;
    fn OSSL_PROVIDER_try_load_ex(
        libctx: *mut OSSL_LIB_CTX,
        name: *const c_char,
        params: *mut OSSL_PARAM,
        retain_fallbacks: c_int,
    ) -> *mut OSSL_PROVIDER;
    fn EVP_default_properties_enable_fips(libctx: *mut OSSL_LIB_CTX, enable: c_int) -> c_int;
    fn EVP_default_properties_is_fips_enabled(libctx: *mut OSSL_LIB_CTX) -> c_int;
}

/// Why FIPS mode could not be turned on: the step, and OpenSSL's errors when it gave any
/// (a failed self-test or integrity check names itself there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FipsError {
    pub step: String,
    pub openssl_errors: Vec<String>,
}

impl fmt::Display for FipsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FIPS mode not turned on: {}", self.step)?;
        if !self.openssl_errors.is_empty() {
            write!(f, ": {}", self.openssl_errors.join("; "))?;
        }
        Ok(())
    }
}

impl std::error::Error for FipsError {}

/// The module this build linked and its `fipsmodule.cnf`, where the build left them.
pub fn module_and_config() -> (&'static Path, &'static Path) {
    let info = crate::build_info();
    let module = info.fips_module.expect("the fips feature links the module");
    let config = info.fips_config.expect("the fips feature writes its configuration");
    (Path::new(module), Path::new(config))
}

/// Turns FIPS mode on in the default library context with the module and configuration this
/// build made ([`module_and_config`]). See [`enable_with`].
pub fn enable() -> Result<(), FipsError> {
    let (module, config) = module_and_config();
    enable_with(module, config)
}

/// Loads the FIPS provider from `module` with the `[fips_sect]` of `config` (a
/// `fipsmodule.cnf`, as `openssl fipsinstall` writes it), which runs the module's integrity
/// check and self-tests, then makes `fips=yes` the default property of every fetch. A failure
/// at any step is an error naming it, and FIPS mode stays off: nothing falls back to the
/// default provider unannounced. Call it before any other use of OpenSSL, from one thread.
pub fn enable_with(module: &Path, config: &Path) -> Result<(), FipsError> {
    let fail = |step: String| FipsError { step, openssl_errors: drain_errors() };
    let params = section_params(config).map_err(fail)?;
    let dir =
        module.parent().ok_or_else(|| fail(format!("{} has no directory", module.display())))?;
    let name = module.file_stem().and_then(|n| n.to_str()).unwrap_or("fips");
    let c = |s: &str, what: &str| CString::new(s).map_err(|_| fail(format!("{what} holds a NUL")));
    let dir = c(&dir.to_string_lossy(), "the module's directory")?;
    let name = c(name, "the module's name")?;
    let mut kv: Vec<(CString, CString)> = Vec::new();
    for (k, v) in &params {
        kv.push((c(k, "a configuration key")?, c(v, "a configuration value")?));
    }
    // SAFETY: every pointer below is to a NUL-terminated string alive until the call returns;
    // the array ends with OSSL_PARAM_construct_end().
    unsafe {
        if OSSL_PROVIDER_set_default_search_path(std::ptr::null_mut(), dir.as_ptr()) != 1 {
            return Err(fail("setting the modules' search path".into()));
        }
        let mut array: Vec<OSSL_PARAM> = kv
            .iter_mut()
            .map(|(k, v)| {
                let len = v.as_bytes().len();
                crate::OSSL_PARAM_construct_utf8_string(k.as_ptr(), v.as_ptr() as *mut c_char, len)
            })
            .collect();
        array.push(crate::OSSL_PARAM_construct_end());
        let prov =
            OSSL_PROVIDER_try_load_ex(std::ptr::null_mut(), name.as_ptr(), array.as_mut_ptr(), 1);
        if prov.is_null() {
            return Err(fail(format!("loading the FIPS provider from {}", module.display())));
        }
        if EVP_default_properties_enable_fips(std::ptr::null_mut(), 1) != 1
            || EVP_default_properties_is_fips_enabled(std::ptr::null_mut()) != 1
        {
            return Err(fail("making fips=yes the default property".into()));
        }
    }
    Ok(())
}

/// The `key = value` pairs of `config`'s `[fips_sect]`.
fn section_params(config: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(config)
        .map_err(|e| format!("reading {}: {e}", config.display()))?;
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = section.trim() == "fips_sect";
            continue;
        }
        if let (true, Some((k, v))) = (inside, line.split_once('=')) {
            out.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    if !out.iter().any(|(k, _)| k == "module-mac") {
        return Err(format!("{} has no module-mac in [fips_sect]", config.display()));
    }
    Ok(out)
}

/// OpenSSL's error queue, oldest first, each as `ERR_error_string_n` words it.
fn drain_errors() -> Vec<String> {
    let mut out = Vec::new();
    loop {
        // SAFETY: plain calls into the error queue; the buffer is 256 bytes, as passed.
        let code: c_ulong = unsafe { crate::ERR_get_error() };
        if code == 0 {
            return out;
        }
        let mut buf = [0 as c_char; 256];
        unsafe { crate::ERR_error_string_n(code, buf.as_mut_ptr(), buf.len()) };
        let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        out.push(text.to_string_lossy().into_owned());
    }
}
