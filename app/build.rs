//! Generates the `i18n` module from `locales/<locale>/<namespace>.json`: zh-CN first (the default), English second.

use std::error::Error;
use std::path::PathBuf;

use leptos_i18n_build::{Config, ParseOptions, TranslationsInfos};

/// One namespace per capability (its pages' words), `common` for the frame, the UI kit and the errors, and
/// `sms` for the text messages.
const NAMESPACES: [&str; 16] = [
    "common",
    "sms",
    "account",
    "auth",
    "catalog",
    "checkin",
    "geo",
    "inbox",
    "merchant",
    "onboarding",
    "ops",
    "orders",
    "reviews",
    "seckill",
    "social",
    "storefront",
];

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR for build scripts")?).join("i18n");
    // `interpolate_display`: a translation with values can be a `String` too (`td_string!`), not only a view,
    // for attributes, titles and messages built outside a view.
    let options = ParseOptions::default().interpolate_display(true);
    let config = Config::new("zh-CN")?.add_locale("en")?.add_namespaces(NAMESPACES)?.parse_options(options);
    let translations = TranslationsInfos::parse(config)?;
    translations.emit_diagnostics();
    translations.rerun_if_locales_changed();
    translations.generate_i18n_module(out)?;
    Ok(())
}
