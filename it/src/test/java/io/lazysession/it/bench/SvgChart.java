package io.lazysession.it.bench;

import java.util.List;
import java.util.Locale;

/**
 * A hand-written SVG of horizontal grouped bar panels stacked top to bottom: one row per store, one
 * bar per series, each panel with its own linear scale and an optional reference line. Not
 * thread-safe.
 */
final class SvgChart {
  private static final int WIDTH = 960;
  private static final int LABEL_WIDTH = 190;
  private static final int VALUE_WIDTH = 90;
  private static final int BAR_HEIGHT = 11;
  private static final int ROW_GAP = 6;
  private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
      "#edc948", "#b07aa1"};

  private final StringBuilder body = new StringBuilder();
  private int y = 10;

  /** A reference line drawn across a panel, e.g. one PING. */
  record Reference(double value, String label) {}

  /**
   * Adds a panel.
   *
   * @param values values[row][series]; NaN draws nothing
   */
  SvgChart panel(String title, String unit, List<String> rows, List<String> series,
      double[][] values, List<Reference> references) {
    double max = 0;
    for (double[] row : values) {
      for (double value : row) {
        if (!Double.isNaN(value)) {
          max = Math.max(max, value);
        }
      }
    }
    for (Reference reference : references) {
      max = Math.max(max, reference.value());
    }
    max = max <= 0 ? 1 : max * 1.05;
    int plotWidth = WIDTH - LABEL_WIDTH - VALUE_WIDTH - 20;
    text(10, y + 14, title, "font-weight:bold;font-size:14px");
    int legendX = 10;
    y += 22;
    for (int s = 0; s < series.size(); s++) {
      rect(legendX, y, 10, 10, COLORS[s % COLORS.length]);
      text(legendX + 14, y + 9, series.get(s), "font-size:11px");
      legendX += 30 + series.get(s).length() * 7;
    }
    y += 18;
    int top = y;
    for (int r = 0; r < rows.size(); r++) {
      int rowHeight = series.size() * BAR_HEIGHT;
      text(LABEL_WIDTH - 6, y + rowHeight / 2 + 4, rows.get(r),
          "font-size:11px;text-anchor:end");
      for (int s = 0; s < series.size(); s++) {
        double value = values[r][s];
        int barY = y + s * BAR_HEIGHT;
        if (Double.isNaN(value)) {
          text(LABEL_WIDTH + 4, barY + BAR_HEIGHT - 2, "n/a", "font-size:10px;fill:#888");
          continue;
        }
        int width = (int) Math.round(value / max * plotWidth);
        rect(LABEL_WIDTH, barY, Math.max(1, width), BAR_HEIGHT - 1, COLORS[s % COLORS.length]);
        text(LABEL_WIDTH + width + 4, barY + BAR_HEIGHT - 2, format(value) + " " + unit,
            "font-size:10px");
      }
      y += rowHeight + ROW_GAP;
    }
    for (Reference reference : references) {
      int x = LABEL_WIDTH + (int) Math.round(reference.value() / max * plotWidth);
      body.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>%n",
          x, top - 4, x, y));
      text(x + 3, y + 10, reference.label() + " " + format(reference.value()) + " " + unit,
          "font-size:10px;fill:#333");
    }
    body.append(String.format(Locale.ROOT,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>%n",
        LABEL_WIDTH, top - 2, LABEL_WIDTH, y));
    y += references.isEmpty() ? 16 : 28;
    return this;
  }

  /** A line of small text (a caption). */
  SvgChart caption(String caption) {
    text(10, y + 10, caption, "font-size:11px;fill:#555");
    y += 18;
    return this;
  }

  String render() {
    return String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
        + "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">%n"
        + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n%s</svg>%n",
        WIDTH, y + 10, WIDTH, y + 10, body);
  }

  private void rect(int x, int rectY, int width, int height, String color) {
    body.append(String.format(Locale.ROOT,
        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n", x, rectY, width,
        height, color));
  }

  private void text(int x, int textY, String text, String style) {
    body.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" style=\"%s\">%s</text>%n", x,
        textY, style, escape(text)));
  }

  static String format(double value) {
    if (value >= 100) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (value >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%.2f", value);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
