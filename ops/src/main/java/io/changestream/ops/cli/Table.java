package io.changestream.ops.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with left-aligned columns, as Kafka's tools print them. Built and printed by one thread. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    Table(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    Table row(Object... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("table row has " + cells.length + " cells, header " + columns);
        }
        String[] row = new String[columns];
        for (int i = 0; i < columns; i++) {
            row[i] = String.valueOf(cells[i]);
        }
        rows.add(row);
        return this;
    }

    void print(PrintWriter out) {
        int[] width = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(row[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(width[i] - row[i].length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }
}
