//! Plain-text tables for the terminal: each column aligned left or right and as wide as its widest cell (at least its
//! minimum width), columns separated by a gap of spaces, no trailing spaces. (`jload gcstat` keeps jstat's own
//! layout in `jvm/perfdata/gcutil.rs`, which must stay byte-identical to jstat.)

/// Which side of its column a cell keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub align: Align,
    /// The column is at least this wide, wider when a cell needs it.
    pub min_width: usize,
    /// Spaces before the column (none before the first).
    pub gap: usize,
}

impl Column {
    /// A left-aligned column at least `min_width` wide, one space after the previous one.
    pub const fn left(min_width: usize) -> Column {
        Column { align: Align::Left, min_width, gap: 1 }
    }

    /// A right-aligned column at least `min_width` wide, one space after the previous one.
    pub const fn right(min_width: usize) -> Column {
        Column { align: Align::Right, min_width, gap: 1 }
    }

    /// The same column with `gap` spaces before it.
    pub const fn after(self, gap: usize) -> Column {
        Column { gap, ..self }
    }
}

/// The lines of a table (header first, if the caller gives one as a row), without newlines. A row shorter than
/// `columns` leaves the rest empty; cells beyond `columns` are not shown.
pub fn render(columns: &[Column], rows: &[Vec<String>]) -> Vec<String> {
    let width = |index: usize| {
        let widest = rows.iter().filter_map(|row| row.get(index)).map(|cell| cell.chars().count()).max();
        widest.unwrap_or(0).max(columns[index].min_width)
    };
    let widths: Vec<usize> = (0..columns.len()).map(width).collect();
    rows.iter()
        .map(|row| {
            let mut line = String::new();
            for (index, column) in columns.iter().enumerate() {
                if index > 0 {
                    line.push_str(&" ".repeat(column.gap));
                }
                let cell = row.get(index).map_or("", String::as_str);
                let width = widths[index];
                match column.align {
                    Align::Left => line.push_str(&format!("{cell:<width$}")),
                    Align::Right => line.push_str(&format!("{cell:>width$}")),
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|cell| cell.to_string()).collect()
    }

    #[test]
    fn columns_align_to_their_widest_cell_or_minimum() {
        let columns = [Column::right(3), Column::left(4).after(2), Column::right(0)];
        let lines = render(
            &columns,
            &[row(&["PID", "MAIN", "N"]), row(&["12345", "Kv", "7"]), row(&["1", "LongerMain", "10"])],
        );
        assert_eq!(lines, ["  PID  MAIN        N", "12345  Kv          7", "    1  LongerMain 10"]);
    }

    #[test]
    fn no_trailing_spaces_and_missing_cells_are_empty() {
        let columns = [Column::left(5), Column::left(8)];
        assert_eq!(render(&columns, &[row(&["a", ""]), row(&["b"])]), ["a", "b"]);
    }

    #[test]
    fn width_counts_characters_not_bytes() {
        let columns = [Column::left(0), Column::left(0)];
        assert_eq!(render(&columns, &[row(&["µs", "x"]), row(&["ms", "y"])]), ["µs x", "ms y"]);
    }
}
