//! The HTML page of [`super::View`]: one file, no network (its CSS and
//! JavaScript inline, nothing fetched), the data embedded as JSON in a
//! `<script type="application/json">`. The script draws the figures table
//! and 200 orders per page, with a filter that leaves only the orders
//! charged two or more times (highlighted).

use serde::Serialize;

use super::{OrderView, OrderWorld, View};
use crate::before_after::race::{Race, Side};
use crate::before_after::{comparison, fleet};
use judge::ejercicios::atomico::schedules;
use judge::fixture::Scenario;
use judge::verdict::Verdict;

/// Orders per page.
pub const PER_PAGE: usize = 200;

/// One world of one order in the page's data: `[attempts, rows]`, an
/// attempt being `[key in hex, delivered, new row]` and a row `[charge id,
/// amount]`.
type WorldData = (Vec<(String, u8, u8)>, Vec<(String, String)>);

/// The page's data, as embedded (see [`html`]).
#[derive(Debug, Serialize)]
pub struct PageData<'a> {
    /// The fixture's name.
    pub fixture: &'a str,
    /// `exercises` or `solutions`.
    pub implementacion: &'a str,
    /// The fleet in `comparar`'s words.
    pub descripcion: String,
    /// The intended total.
    pub intencion: String,
    /// Orders per page.
    pub por_pagina: usize,
    /// Calls off the network per world ([`View::off_network`]).
    pub fuera_de_red: [u64; 2],
    /// The rows of `comparar`'s table: label, before, after, difference.
    pub cifras: Vec<[String; 4]>,
    /// Per order: id, amount, whether charged 2+ times (1 or 0), then each
    /// world's [`WorldData`].
    pub ordenes: Vec<(String, String, u8, WorldData, WorldData)>,
    /// Lesson 4's race ([`crate::before_after::race`]).
    pub carrera: RaceData,
}

/// The race in the page's data: `estado` is `corrio`, `pendiente` or
/// `no_corrio` (then `mensaje` says why); the sides only when it ran.
#[derive(Debug, Serialize)]
pub struct RaceData {
    /// `corrio`, `pendiente` or `no_corrio`.
    pub estado: &'static str,
    /// Why it did not run, in Spanish (empty when it ran).
    pub mensaje: String,
    /// Without atomicity, then the implementation's store.
    pub lados: Vec<SideData>,
    /// Whether the store's schedule is its own, not the contrast's.
    pub propio: bool,
}

/// One side of the race: its label, figures, steps and ledger.
#[derive(Debug, Serialize)]
pub struct SideData {
    /// `SIN atomicidad` or `CON tu store atómico`.
    pub titulo: &'static str,
    /// Ledger rows.
    pub cargos: usize,
    /// Their sum, as `$1000`.
    pub total: String,
    /// Every step: `[thread (0: before the threads), words]`.
    pub pasos: Vec<(u32, String)>,
    /// The step where a rule of lesson 4 breaks, from 0, and its mark.
    pub marca: Option<(usize, String)>,
    /// What was expected there (empty when nothing breaks).
    pub esperado: String,
    /// Every ledger row: `charge id key amount`.
    pub ledger: Vec<String>,
    /// The command that replays the schedule on the student's store.
    pub comando: String,
}

/// The page's data of `race`.
pub fn race_data(race: Result<&Race, &Verdict>) -> RaceData {
    let side = |titulo, s: &Side, r: &Race| SideData {
        titulo,
        cargos: s.charges(),
        total: crate::tables::plain(s.charged()),
        pasos: s
            .outcome
            .steps
            .iter()
            .map(|st| (st.thread(), schedules::step_words(st)))
            .collect(),
        marca: s
            .broken
            .as_ref()
            .and_then(|b| b.at.map(|at| (at, b.mark.clone()))),
        esperado: s
            .broken
            .as_ref()
            .map(|b| b.expected.clone())
            .unwrap_or_default(),
        ledger: s
            .outcome
            .ledger
            .iter()
            .map(|row| {
                format!(
                    "{} {} {}",
                    row.charge_id,
                    schedules::label(row.key),
                    row.amount
                )
            })
            .collect(),
        comando: s.replay_command(&r.history),
    };
    match race {
        Ok(r) => RaceData {
            estado: "corrio",
            mensaje: String::new(),
            lados: vec![
                side("SIN atomicidad", &r.without, r),
                side("CON tu store atómico", &r.with, r),
            ],
            propio: r.own_schedule,
        },
        Err(v) => RaceData {
            estado: if matches!(v, Verdict::Pending { .. }) {
                "pendiente"
            } else {
                "no_corrio"
            },
            mensaje: v.explanation().join(" "),
            lados: Vec::new(),
            propio: false,
        },
    }
}

/// The page's data for `view`.
pub fn data<'a>(
    scenario: &'a Scenario,
    crate_name: &'a str,
    view: &View,
    race: Result<&Race, &Verdict>,
) -> PageData<'a> {
    PageData {
        fixture: &scenario.name,
        implementacion: crate_name,
        descripcion: fleet::describe(scenario, true),
        intencion: view.worlds.after.intended.to_string(),
        por_pagina: PER_PAGE,
        fuera_de_red: view.off_network,
        cifras: comparison::rows(&view.worlds)
            .into_iter()
            .map(|(label, before, after, diff)| [label.to_string(), before, after, diff])
            .collect(),
        ordenes: view.orders.iter().map(order).collect(),
        carrera: race_data(race),
    }
}

fn order(o: &OrderView) -> (String, String, u8, WorldData, WorldData) {
    (
        o.id.to_string(),
        o.amount.to_string(),
        u8::from(o.charged_twice_or_more()),
        world(&o.worlds[0]),
        world(&o.worlds[1]),
    )
}

fn world(w: &OrderWorld) -> WorldData {
    let attempts = w
        .attempts
        .iter()
        .map(|a| {
            (
                format!("{:016x}", a.key.0),
                u8::from(a.delivered),
                u8::from(a.new_row),
            )
        })
        .collect();
    let rows = w
        .rows
        .iter()
        .map(|(id, amount)| (id.to_string(), amount.to_string()))
        .collect();
    (attempts, rows)
}

/// The whole page.
pub fn html(
    scenario: &Scenario,
    crate_name: &str,
    view: &View,
    race: Result<&Race, &Verdict>,
) -> String {
    let data = serde_json::to_string(&data(scenario, crate_name, view, race)).unwrap_or_default();
    // Nothing in the data may close the script element.
    let data = data.replace("</", "<\\/");
    TEMPLATE
        .replace(
            "@TITULO@",
            &escape(&format!(
                "El ledger, orden por orden · {} · con {crate_name}",
                scenario.name
            )),
        )
        .replace("@DATOS@", &data)
}

/// `text` safe inside HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const TEMPLATE: &str = r###"<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITULO@</title>
<style>
  :root { --borde: #d0d4da; --suave: #f5f6f8; --rojo: #b42318; --verde: #067647; --resalte: #fff4d6; }
  * { box-sizing: border-box; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1d2433; background: #fff; }
  header { padding: 18px 24px 8px; border-bottom: 1px solid var(--borde); }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .desc { white-space: pre-line; color: #4a5366; font-size: 13px; }
  main { padding: 12px 24px 40px; }
  table { border-collapse: collapse; }
  #cifras td, #cifras th { padding: 3px 12px; border-bottom: 1px solid var(--suave); text-align: right; font-variant-numeric: tabular-nums; }
  #cifras td:first-child, #cifras th:first-child { text-align: left; }
  #cifras th { font-size: 12px; color: #4a5366; font-weight: 600; }
  .intencion { margin: 8px 0; }
  .controles { display: flex; gap: 18px; align-items: center; margin: 16px 0 8px; flex-wrap: wrap; }
  .controles button { font: inherit; padding: 3px 10px; border: 1px solid var(--borde); background: var(--suave); border-radius: 6px; cursor: pointer; }
  .controles button:disabled { opacity: .4; cursor: default; }
  .leyenda { color: #4a5366; font-size: 12px; margin-bottom: 8px; }
  #ordenes { width: 100%; }
  #ordenes th { position: sticky; top: 0; background: #fff; text-align: left; font-size: 12px; color: #4a5366; border-bottom: 2px solid var(--borde); padding: 6px 8px; }
  #ordenes td { vertical-align: top; padding: 5px 8px; border-bottom: 1px solid var(--suave); }
  #ordenes td.mundo { border-left: 1px solid var(--borde); }
  tr.doble td { background: var(--resalte); }
  tr.doble td:first-child { box-shadow: inset 4px 0 0 var(--rojo); font-weight: 600; }
  .num { font-variant-numeric: tabular-nums; white-space: nowrap; }
  .chip { display: inline-block; margin: 1px 4px 1px 0; padding: 0 6px; border-radius: 10px; font-size: 12px; white-space: nowrap; border: 1px solid var(--borde); background: #fff; }
  .perdida { border-color: #f2b8b5; color: var(--rojo); }
  .entregada { border-color: #a6e0c0; color: var(--verde); }
  .replay { font-style: italic; }
  .fila { font-family: ui-monospace, Menlo, Consolas, monospace; }
  .fila.extra { color: var(--rojo); font-weight: 600; }
  .key { font-family: ui-monospace, Menlo, Consolas, monospace; color: #4a5366; }
  .aviso { color: var(--rojo); }
  #carrera { margin: 18px 0 6px; padding: 10px 14px; border: 1px solid var(--borde); border-radius: 8px; background: var(--suave); }
  #carrera h2 { font-size: 16px; margin: 0 0 6px; }
  #carrera .lados { display: flex; gap: 18px; flex-wrap: wrap; }
  #carrera .lado { flex: 1 1 420px; background: #fff; border: 1px solid var(--borde); border-radius: 6px; padding: 8px 10px; }
  #carrera h3 { font-size: 14px; margin: 0 0 4px; }
  #carrera table { width: 100%; font-size: 13px; }
  #carrera td, #carrera th { padding: 2px 6px; border-bottom: 1px solid var(--suave); text-align: left; vertical-align: top; }
  #carrera tr.marca td { background: #fde8e7; color: var(--rojo); font-weight: 600; }
  #carrera .comando { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; color: #4a5366; }
</style>
</head>
<body>
<header>
  <h1 id="titulo">@TITULO@</h1>
  <div class="desc" id="descripcion"></div>
</header>
<main>
  <table id="cifras">
    <thead><tr><th></th><th>SIN idempotencia (antes)</th><th>CON idempotency_key (después)</th><th>diferencia</th></tr></thead>
    <tbody></tbody>
  </table>
  <div class="intencion" id="intencion"></div>
  <div class="aviso" id="aviso"></div>
  <section id="carrera">
    <h2>Dos reintentos a la vez, la misma key (lección 4, bonus)</h2>
    <div id="carrera-texto"></div>
    <div class="lados" id="carrera-lados"></div>
  </section>
  <div class="controles">
    <label><input type="checkbox" id="solo-dobles"> solo las órdenes cobradas 2+ veces (<span id="resaltadas"></span>)</label>
    <span><button id="anterior">‹ anterior</button> <span id="pagina"></span> <button id="siguiente">siguiente ›</button></span>
  </div>
  <div class="leyenda">Cada intento: su número, la idempotency key que llevó, si la respuesta <span class="entregada">llegó</span> o se <span class="perdida">perdió</span> en la red, y si dejó una fila nueva en el ledger (cobro) o fue un <i>replay</i>. Resaltadas: las órdenes que el ledger cobró 2+ veces; en rojo, las filas de más.</div>
  <table id="ordenes">
    <thead><tr><th>orden</th><th>monto</th><th>SIN: intentos</th><th>SIN: filas del ledger</th><th>CON: intentos</th><th>CON: filas del ledger</th></tr></thead>
    <tbody></tbody>
  </table>
</main>
<script type="application/json" id="datos">@DATOS@</script>
<script>
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("datos").textContent);
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  document.getElementById("descripcion").textContent = D.descripcion;
  document.getElementById("intencion").textContent =
    "Cobro correcto (intención): " + D.intencion + " (" + D.ordenes.length.toLocaleString("en-US") + " órdenes)";
  var cifras = document.querySelector("#cifras tbody");
  D.cifras.forEach(function (r) {
    var tr = el("tr");
    r.forEach(function (c) { tr.appendChild(el("td", "", c)); });
    cifras.appendChild(tr);
  });
  var avisos = [];
  ["SIN", "CON"].forEach(function (m, i) {
    if (D.fuera_de_red[i] > 0) avisos.push(m + ": tu cliente llamó a charge " + D.fuera_de_red[i] + " veces sin pasar por la red; las entregas de esos intentos no son las de la red.");
  });
  document.getElementById("aviso").textContent = avisos.join(" ");
  (function carrera() {
    var C = D.carrera, texto = document.getElementById("carrera-texto");
    if (C.estado !== "corrio") {
      texto.textContent = (C.estado === "pendiente"
        ? "Pendiente: tu AtomicPaymentsServer::charge (ejercicio 4, bonus) todavía es todo!(); cuando lo resuelvas, aquí verás dos reintentos a la vez con tu store. "
        : "No se pudo correr con tu store (ejercicio 4, bonus): ") + (C.estado === "pendiente" ? "" : C.mensaje);
      return;
    }
    texto.textContent = "Ana compra por $500. La respuesta se pierde y orders reintenta mientras el primer cobro sigue en curso: dos requests con la misma key a la vez. Cobro correcto: $500." +
      (C.propio ? " Tu store rompe las reglas de la lección 4 en un horario propio (otro que el del contraste): se muestra ese." : " Los dos servidores, en el mismo horario.");
    var lados = document.getElementById("carrera-lados");
    C.lados.forEach(function (l) {
      var caja = el("div", "lado");
      caja.appendChild(el("h3", "", l.titulo + ": cargos=" + l.cargos + " · TOTAL COBRADO=" + l.total));
      var t = el("table"), head = el("tr");
      ["paso", "hilo 1", "hilo 2"].forEach(function (h) { head.appendChild(el("th", "", h)); });
      t.appendChild(head);
      l.pasos.forEach(function (p, i) {
        var marcado = l.marca && l.marca[0] === i;
        var tr = el("tr", marcado ? "marca" : "");
        tr.appendChild(el("td", "num", String(i + 1)));
        for (var h = 1; h <= 2; h++) {
          var quien = p[0] === 0 ? 1 : p[0];
          tr.appendChild(el("td", "", quien === h ? p[1] + (marcado ? "   " + l.marca[1] : "") : ""));
        }
        t.appendChild(tr);
      });
      caja.appendChild(t);
      caja.appendChild(el("div", "", "ledger al final: " + (l.ledger.length ? l.ledger.join(" · ") : "sin filas")));
      if (l.esperado) caja.appendChild(el("div", "aviso", "se esperaba " + l.esperado));
      caja.appendChild(el("div", "comando", "repítelo con: " + l.comando));
      lados.appendChild(caja);
    });
  })();
  var dobles = D.ordenes.filter(function (o) { return o[2] === 1; });
  document.getElementById("resaltadas").textContent = dobles.length.toLocaleString("en-US");
  var solo = document.getElementById("solo-dobles");
  var pagina = 0;
  var tbody = document.querySelector("#ordenes tbody");
  function lista() { return solo.checked ? dobles : D.ordenes; }
  function paginas() { return Math.max(1, Math.ceil(lista().length / D.por_pagina)); }
  function intentos(td, mundo) {
    mundo[0].forEach(function (a, i) {
      var chip = el("span", "chip " + (a[1] ? "entregada" : "perdida") + (a[2] ? "" : " replay"));
      chip.title = "idem_" + a[0];
      chip.appendChild(el("b", "", "#" + (i + 1) + " "));
      chip.appendChild(el("span", "key", "idem_" + a[0].slice(0, 6) + "… "));
      chip.appendChild(document.createTextNode((a[1] ? "llegó" : "perdida") + " · " + (a[2] ? "cobro" : "replay")));
      td.appendChild(chip);
    });
  }
  function filas(td, mundo) {
    mundo[1].forEach(function (f, i) {
      td.appendChild(el("span", "chip fila" + (i > 0 ? " extra" : ""), f[0] + " " + f[1]));
    });
    if (mundo[1].length === 0) td.appendChild(el("span", "chip fila", "sin filas"));
  }
  function dibujar() {
    var l = lista();
    pagina = Math.min(pagina, paginas() - 1);
    var desde = pagina * D.por_pagina;
    tbody.textContent = "";
    l.slice(desde, desde + D.por_pagina).forEach(function (o) {
      var tr = el("tr", o[2] === 1 ? "doble" : "");
      tr.appendChild(el("td", "num", o[0]));
      tr.appendChild(el("td", "num", o[1]));
      [o[3], o[4]].forEach(function (m) {
        var a = el("td", "mundo"); intentos(a, m); tr.appendChild(a);
        var f = el("td"); filas(f, m); tr.appendChild(f);
      });
      tbody.appendChild(tr);
    });
    document.getElementById("pagina").textContent =
      "página " + (pagina + 1) + " de " + paginas() + " · " + l.length.toLocaleString("en-US") + " órdenes";
    document.getElementById("anterior").disabled = pagina === 0;
    document.getElementById("siguiente").disabled = pagina >= paginas() - 1;
  }
  solo.addEventListener("change", function () { pagina = 0; dibujar(); });
  document.getElementById("anterior").addEventListener("click", function () { pagina--; dibujar(); });
  document.getElementById("siguiente").addEventListener("click", function () { pagina++; dibujar(); });
  if (location.hash === "#dobles") solo.checked = true;
  dibujar();
})();
</script>
</body>
</html>
"###;
