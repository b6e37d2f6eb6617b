//! Writing to the terminal: colours only where they belong.

use std::io::Write;

/// Prints `text` to standard output through anstream, which drops the ANSI
/// colours when stdout is not a terminal or `NO_COLOR` is set.
pub fn print_stdout(text: &str) {
    let mut out = anstream::stdout();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// An I/O error in Spanish, for messages that name the file: what the
/// operating system said, without its English text.
pub fn io_error(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "la carpeta que lo contiene no existe".to_string(),
        K::PermissionDenied => "no hay permiso para escribir ahí".to_string(),
        K::IsADirectory => "es una carpeta, no un archivo".to_string(),
        K::NotADirectory => "una parte de la ruta no es una carpeta".to_string(),
        K::ReadOnlyFilesystem => "el sistema de archivos es de solo lectura".to_string(),
        K::StorageFull => "el disco está lleno".to_string(),
        _ => format!("error de entrada/salida ({:?})", e.kind()),
    }
}

/// `text` without ANSI colour codes (for files and machine-read output).
pub fn strip_colours(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}
