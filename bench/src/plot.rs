//! `ferrax-bench plot`: `bench/results/scaling.csv` (written by `bench/sweep`) drawn as
//! an SVG of log-log panels, one per swept workload, time per call against size, one
//! line for ferrax and one for JAX, so a reader sees where each side wins and how the
//! cost grows with the work.

use crate::{Error, Result};
use plotters::prelude::*;
use std::path::Path;

/// One point of the CSV: a workload at a size, each side's median (µs; `None` when the
/// side has no figure).
struct Point {
    workload: String,
    size_name: String,
    size: f64,
    ferrax: Option<f64>,
    jax: Option<f64>,
}

/// Reads `workload,size_name,size,ferrax_us,jax_us` rows (after a header).
fn read(csv: &Path) -> Result<Vec<Point>> {
    let text = std::fs::read_to_string(csv).map_err(|e| Error::at(&csv.display().to_string(), e))?;
    let mut points = Vec::new();
    for (k, line) in text.lines().enumerate().skip(1).filter(|(_, l)| !l.trim().is_empty()) {
        let at = |m: &str| Error::at(&format!("{}:{}", csv.display(), k + 1), m);
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let [workload, size_name, size, ferrax, jax] = cells[..] else {
            return Err(at("expected 5 columns: workload,size_name,size,ferrax_us,jax_us"));
        };
        let number = |s: &str| -> Result<Option<f64>> {
            if s.is_empty() {
                return Ok(None);
            }
            s.parse::<f64>().map(Some).map_err(|_| at(&format!("`{s}` is not a number")))
        };
        let size = number(size)?.ok_or_else(|| at("no size"))?;
        let (ferrax, jax) = (number(ferrax)?, number(jax)?);
        points.push(Point { workload: workload.into(), size_name: size_name.into(), size, ferrax, jax });
    }
    Ok(points)
}

/// Draws `csv` into the SVG `out`.
pub fn plot(csv: &Path, out: &Path) -> Result<()> {
    let points = read(csv)?;
    let mut workloads: Vec<&str> = Vec::new();
    for p in &points {
        if !workloads.contains(&p.workload.as_str()) {
            workloads.push(&p.workload);
        }
    }
    if workloads.is_empty() {
        return Err(Error::at(&csv.display().to_string(), "no points"));
    }
    let columns = workloads.len().min(3);
    let rows = workloads.len().div_ceil(columns);
    let fail = |e: &dyn std::fmt::Display| Error::at(&out.display().to_string(), e);
    let root = SVGBackend::new(out, (520 * columns as u32, 380 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    for (panel, workload) in root.split_evenly((rows, columns)).iter().zip(&workloads) {
        let mine: Vec<&Point> = points.iter().filter(|p| p.workload == *workload).collect();
        draw_panel(panel, workload, &mine).map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}

/// One workload's panel: both sides' times against the size, log-log.
fn draw_panel<DB: DrawingBackend>(
    panel: &DrawingArea<DB, plotters::coord::Shift>,
    workload: &str,
    points: &[&Point],
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let sizes = points.iter().map(|p| p.size);
    let times = points.iter().flat_map(|p| [p.ferrax, p.jax]).flatten();
    let (x0, x1) = sizes.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (y0, y1) = times.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    if x0 > x1 || y0 > y1 {
        return Ok(());
    }
    let size_name = points.first().map_or("size", |p| p.size_name.as_str());
    let mut chart = ChartBuilder::on(panel)
        .caption(workload, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 * 0.8..x1 * 1.25).log_scale(), (y0 * 0.7..y1 * 1.4).log_scale())?;
    chart.configure_mesh().x_desc(size_name).y_desc("µs per call").draw()?;
    let sides: [(&str, RGBColor, fn(&Point) -> Option<f64>); 2] =
        [("ferrax", RGBColor(200, 70, 20), |p| p.ferrax), ("JAX", RGBColor(30, 90, 190), |p| p.jax)];
    for (label, color, time) in sides {
        let line: Vec<(f64, f64)> = points.iter().filter_map(|p| time(p).map(|t| (p.size, t))).collect();
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(line.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).border_style(BLACK).draw()?;
    Ok(())
}
