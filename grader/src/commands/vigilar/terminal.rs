//! The terminal `vigilar` draws on: raw mode (keys without Enter, no echo),
//! a key reader on its own thread, and whole-screen redraws.

use std::io::{self, Write};

use crossterm::cursor::{Hide, MoveTo, Show};
use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::terminal::{self, Clear, ClearType};
use crossterm::{execute, queue};

/// The keys `vigilar` answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// `q` (or Ctrl-C, Esc): quit.
    Quit,
    /// `r`: grade again.
    Regrade,
    /// `n` (or →): the next exercise.
    Next,
    /// `p` (or ←): the previous exercise.
    Previous,
    /// `h`: show or hide the hint.
    Hint,
    /// The terminal changed size: draw again.
    Resized,
}

/// Raw mode for as long as it lives; the terminal is restored on drop, also
/// when the program panics.
pub struct RawMode {
    colour: bool,
}

impl RawMode {
    /// Enters raw mode and hides the cursor. Colours follow the text
    /// report's rule (anstream's: none with `NO_COLOR` or off a terminal).
    ///
    /// # Errors
    /// When standard input is not a terminal.
    pub fn enter() -> io::Result<RawMode> {
        terminal::enable_raw_mode()?;
        judge::runner::cleanup::on_signal_restore(restore);
        let _ = execute!(io::stdout(), Hide);
        let colour = anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never;
        Ok(RawMode { colour })
    }

    /// Clears the screen and writes `text` from the top-left corner.
    pub fn draw(&self, text: &str) {
        let text = if self.colour {
            text.to_string()
        } else {
            judge::output::strip_colours(text)
        };
        let mut out = io::stdout().lock();
        let _ = queue!(out, Clear(ClearType::All), MoveTo(0, 0));
        // Raw mode does not turn "\n" into a new line at the left margin.
        let _ = out.write_all(text.replace('\n', "\r\n").as_bytes());
        let _ = out.flush();
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

/// The terminal as it was: cursor shown, raw mode off. Also what runs when a
/// signal ends the judge while the screen is in raw mode.
fn restore() {
    let _ = execute!(io::stdout(), Show);
    let _ = terminal::disable_raw_mode();
}

/// Reads keys until `send` returns false or the terminal fails; run it on
/// its own thread.
pub fn read_keys(send: impl Fn(Key) -> bool) {
    loop {
        let key = match event::read() {
            Ok(Event::Key(k)) if k.kind == KeyEventKind::Press => match k.code {
                KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => Key::Quit,
                KeyCode::Char('q' | 'Q') | KeyCode::Esc => Key::Quit,
                KeyCode::Char('r' | 'R') => Key::Regrade,
                KeyCode::Char('n' | 'N') | KeyCode::Right => Key::Next,
                KeyCode::Char('p' | 'P') | KeyCode::Left => Key::Previous,
                KeyCode::Char('h' | 'H') => Key::Hint,
                _ => continue,
            },
            Ok(Event::Resize(..)) => Key::Resized,
            Ok(_) => continue,
            Err(_) => Key::Quit,
        };
        if !send(key) || key == Key::Quit {
            return;
        }
    }
}
