package io.ckc.perf;

import java.util.List;
import java.util.Locale;

/**
 * Small inline SVG charts for the HTML report: line charts and grouped bar charts, no script and
 * no external file, so the report is one self-contained page.
 */
final class Svg {

    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
            "#e377c2", "#7f7f7f"};
    private static final int WIDTH = 640;
    private static final int HEIGHT = 300;
    private static final int LEFT = 60;
    private static final int RIGHT = 20;
    private static final int TOP = 30;
    private static final int BOTTOM = 45;

    /** A named line: points (x[i], y[i]); NaN values are gaps. */
    record Series(String name, double[] x, double[] y) {
    }

    /** A named set of bars, one per category. */
    record Bars(String name, double[] values) {
    }

    private Svg() {
    }

    static String lineChart(String title, String xLabel, String yLabel, List<Series> series) {
        double xMax = 0;
        double yMax = 0;
        double xMin = Double.MAX_VALUE;
        for (Series s : series) {
            for (int i = 0; i < s.x().length; i++) {
                if (!Double.isNaN(s.y()[i])) {
                    xMax = Math.max(xMax, s.x()[i]);
                    xMin = Math.min(xMin, s.x()[i]);
                    yMax = Math.max(yMax, s.y()[i]);
                }
            }
        }
        if (xMin == Double.MAX_VALUE) {
            xMin = 0;
        }
        xMin = Math.min(0, xMin);
        yMax = niceCeiling(yMax);
        xMax = xMax <= xMin ? xMin + 1 : xMax;
        StringBuilder svg = frame(title, xLabel, yLabel, xMin, xMax, yMax);
        for (int k = 0; k < series.size(); k++) {
            Series s = series.get(k);
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < s.x().length; i++) {
                if (Double.isNaN(s.y()[i])) {
                    continue;
                }
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px(s.x()[i], xMin, xMax), py(s.y()[i], yMax)));
            }
            svg.append(String.format(Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>", colour(s.name(), k), points));
        }
        legend(svg, series.stream().map(Series::name).toList());
        return svg.append("</svg>").toString();
    }

    static String barChart(String title, String yLabel, List<String> categories, List<Bars> bars) {
        double yMax = 0;
        for (Bars b : bars) {
            for (double v : b.values()) {
                yMax = Math.max(yMax, v);
            }
        }
        yMax = niceCeiling(yMax);
        StringBuilder svg = frame(title, "", yLabel, 0, 1, yMax);
        double plotWidth = WIDTH - LEFT - RIGHT;
        double groupWidth = plotWidth / Math.max(1, categories.size());
        double barWidth = groupWidth * 0.8 / Math.max(1, bars.size());
        for (int c = 0; c < categories.size(); c++) {
            double groupX = LEFT + c * groupWidth + groupWidth * 0.1;
            for (int k = 0; k < bars.size(); k++) {
                double v = bars.get(k).values()[c];
                double y = py(v, yMax);
                svg.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %.2f</title></rect>",
                        groupX + k * barWidth, y, Math.max(1, barWidth - 1), HEIGHT - BOTTOM - y,
                        colour(bars.get(k).name(), k),
                        escape(bars.get(k).name()), escape(categories.get(c)), v));
            }
            svg.append(String.format(Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>",
                    LEFT + (c + 0.5) * groupWidth, HEIGHT - BOTTOM + 14, escape(categories.get(c))));
        }
        legend(svg, bars.stream().map(Bars::name).toList());
        return svg.append("</svg>").toString();
    }

    private static StringBuilder frame(String title, String xLabel, String yLabel, double xMin, double xMax,
                                       double yMax) {
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">",
                WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%s</text>",
                LEFT, escape(title)));
        int x0 = LEFT;
        int y0 = HEIGHT - BOTTOM;
        svg.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
                x0, TOP, x0, y0, x0, y0, WIDTH - RIGHT, y0));
        for (int i = 0; i <= 4; i++) {
            double v = yMax * i / 4;
            double y = py(v, yMax);
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>",
                    x0, y, WIDTH - RIGHT, y, x0 - 4, y + 3, number(v)));
        }
        if (!xLabel.isEmpty()) {
            for (int i = 0; i <= 4; i++) {
                double v = xMin + (xMax - xMin) * i / 4;
                svg.append(String.format(Locale.ROOT,
                        "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>",
                        px(v, xMin, xMax), y0 + 14, number(v)));
            }
        }
        svg.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>", (LEFT + WIDTH - RIGHT) / 2,
                HEIGHT - 8, escape(xLabel)));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"14\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">%s</text>",
                (TOP + y0) / 2, (TOP + y0) / 2, escape(yLabel)));
        return svg;
    }

    private static void legend(StringBuilder svg, List<String> names) {
        for (int k = 0; k < names.size(); k++) {
            int x = WIDTH - RIGHT - 150;
            int y = TOP + 4 + k * 14;
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"10\">%s</text>",
                    x, y, colour(names.get(k), k), x + 14, y + 9, escape(names.get(k))));
        }
    }

    private static double px(double x, double xMin, double xMax) {
        return LEFT + (x - xMin) / (xMax - xMin) * (WIDTH - LEFT - RIGHT);
    }

    private static double py(double y, double yMax) {
        return HEIGHT - BOTTOM - (yMax <= 0 ? 0 : y / yMax) * (HEIGHT - TOP - BOTTOM);
    }

    /** 1, 2 or 5 times a power of ten, at or above the value. */
    static double niceCeiling(double value) {
        if (!(value > 0)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String number(double v) {
        return Math.abs(v) >= 100 || v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.2g", v);
    }

    private static String colour(int k) {
        return COLOURS[k % COLOURS.length];
    }

    /** The same colour for a path in every chart: CKC red, the Kafka baseline blue. */
    private static String colour(String name, int k) {
        return switch (name) {
            case Results.CKC -> "#d62728";
            case Results.KAFKA -> "#1f77b4";
            case "offered", "saturation limit" -> "#999999";
            default -> colour(k);
        };
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
