package io.ckc.perf;

import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The report's charts, drawn by XChart and inlined in the page as PNG images, so the report stays one
 * file with no script. Why not SVG: XChart draws text as outlines, which made each chart a quarter of
 * a megabyte; a PNG is a tenth of that. CKC and the bare-Kafka baseline always get the same
 * colours; a series may carry its 95% confidence interval, drawn as two thin dashed lines of its
 * colour (they work on log axes too, where error bars below zero cannot be drawn). Points a log axis
 * cannot show (zero, negative, NaN) are left out.
 */
final class Charts {

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private static final int WIDTH = 660;
    private static final int HEIGHT = 340;
    private static final Color CKC = new Color(0x1f77b4);
    private static final Color KAFKA = new Color(0xd62728);
    private static final Color REFERENCE = new Color(0x7f7f7f);
    /** Eight, so that the soak's eight processes besides Kafka each have their own (six repeated one). */
    private static final Color[] OTHERS = {new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
            new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf), new Color(0xbcbd22), new Color(0x393b79)};

    /**
     * A named line: points (x[i], y[i]); {@code low}/{@code high}: its 95% confidence interval, or
     * null; {@code reference}: a guide (offered load, a limit), drawn grey and dashed.
     */
    record Series(String name, double[] x, double[] y, double[] low, double[] high, boolean reference) {

        static Series of(String name, double[] x, double[] y) {
            return new Series(name, x, y, null, null, false);
        }

        static Series withCi(String name, double[] x, double[] y, double[] low, double[] high) {
            return new Series(name, x, y, low, high, false);
        }

        static Series reference(String name, double[] x, double[] y) {
            return new Series(name, x, y, null, null, true);
        }
    }

    /**
     * An event on a timeline (a fault, a rescale), drawn as a thin vertical line at {@code x} with {@code label} at its
     * top: not a series, so twenty of them do not fill the legend (the events' table is beside the chart).
     */
    record Marker(double x, String label) {
    }

    /** A named set of bars, one per category. */
    record Bars(String name, double[] values) {
    }

    /** Which axes are logarithmic. */
    enum Scale { LINEAR, LOG_Y, LOG_X, LOG_XY }

    /** Series names the legend holds in one row below a chart; more go in a column at its right. */
    private static final int LEGEND_BELOW_AT_MOST = 4;

    private Charts() {
    }

    static String line(String title, String xLabel, String yLabel, Scale scale, List<Series> series) {
        return line(title, xLabel, yLabel, scale, series, List.of());
    }

    static String line(String title, String xLabel, String yLabel, Scale scale, List<Series> series,
                       List<Marker> markers) {
        boolean logX = scale == Scale.LOG_X || scale == Scale.LOG_XY;
        boolean logY = scale == Scale.LOG_Y || scale == Scale.LOG_XY;
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xLabel)
                .yAxisTitle(yLabel).build();
        style(chart.getStyler());
        if (series.size() > LEGEND_BELOW_AT_MOST) { // a row of that many names is wider than the chart: a column
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        }
        chart.getStyler().setXAxisLogarithmic(logX).setYAxisLogarithmic(logY);
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        int others = 0;
        boolean any = false;
        for (Series s : series) {
            Color colour = s.reference() ? REFERENCE : colourOf(s.name(), others);
            if (!s.reference() && colour != CKC && colour != KAFKA) {
                others++;
            }
            double[][] points = drawable(s.x(), s.y(), logX, logY);
            if (points[0].length == 0) {
                continue;
            }
            any = true;
            XYSeries line = chart.addSeries(s.name(), points[0], points[1]);
            line.setLineColor(colour);
            line.setMarkerColor(colour);
            if (s.reference()) {
                line.setLineStyle(SeriesLines.DASH_DASH);
                line.setMarker(SeriesMarkers.NONE);
            } else {
                line.setMarker(points[0].length > 60 ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
            }
            if (s.low() != null && s.high() != null) {
                bound(chart, s.name() + " 95% CI low", s.x(), s.low(), colour, logX, logY);
                bound(chart, s.name() + " 95% CI high", s.x(), s.high(), colour, logX, logY);
            }
        }
        if (!any) {
            return "<p class=\"note\">" + escape(title) + ": no data.</p>";
        }
        mark(chart, markers, series, logY);
        List<String> names = new ArrayList<>(series.stream().map(Series::name).toList());
        if (!markers.isEmpty()) {
            names.add("events " + String.join(", ", markers.stream().map(Marker::label).toList()));
        }
        return image(chart, title, names);
    }

    /**
     * Each marker as a vertical line over the whole plot, its label just below the highest point drawn, on one of three
     * rows in turn so that the labels of markers close together do not overlap.
     */
    private static void mark(XYChart chart, List<Marker> markers, List<Series> series, boolean logY) {
        if (markers.isEmpty()) {
            return;
        }
        chart.getStyler().setAnnotationLineColor(REFERENCE);
        chart.getStyler().setAnnotationLineStroke(thinDashes(2f));
        chart.getStyler().setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 9));
        chart.getStyler().setAnnotationTextFontColor(Color.DARK_GRAY);
        double top = series.stream().flatMapToDouble(s -> java.util.Arrays.stream(s.y()))
                .filter(v -> !Double.isNaN(v) && !Double.isInfinite(v) && (!logY || v > 0)).max().orElse(1);
        double bottom = logY ? 1 : 0;
        for (int i = 0; i < markers.size(); i++) {
            Marker marker = markers.get(i);
            int row = i % 3;
            // Why per scale: rows a twelfth of the plot's height apart, as the eye sees it on a log axis too.
            double y = logY ? top / Math.pow(Math.max(top / bottom, 10), row / 12.0) : top - row * (top - bottom) / 12;
            chart.addAnnotation(new AnnotationLine(marker.x(), true, false));
            chart.addAnnotation(new AnnotationText(marker.label(), marker.x(), y, false));
        }
    }

    static String bars(String title, String yLabel, List<String> categories, List<Bars> bars, boolean logY) {
        if (categories.isEmpty() || bars.isEmpty()) {
            return "<p class=\"note\">" + escape(title) + ": no data.</p>";
        }
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("")
                .yAxisTitle(yLabel).build();
        style(chart.getStyler());
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setXAxisLabelRotation(categories.size() > 6 ? 30 : 0);
        int others = 0;
        for (Bars b : bars) {
            List<Double> values = new ArrayList<>();
            for (double v : b.values()) {
                values.add(Double.isNaN(v) || (logY && v <= 0) ? null : v);
            }
            Color colour = colourOf(b.name(), others);
            if (colour != CKC && colour != KAFKA) {
                others++;
            }
            chart.addSeries(b.name(), categories, values).setFillColor(colour);
        }
        if (logY) {
            // bars rise from the axis's minimum: on a log axis it must be set, below the smallest bar
            bars.stream().flatMapToDouble(b -> java.util.Arrays.stream(b.values())).filter(v -> v > 0).min()
                    .ifPresent(min -> chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min)))));
        }
        return image(chart, title, bars.stream().map(Bars::name).toList());
    }

    private static void style(org.knowm.xchart.style.AxesChartStyler styler) {
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotBorderColor(new Color(0xcccccc));
        styler.setPlotGridLinesColor(new Color(0xe6e6e6));
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setLegendBorderColor(Color.WHITE);
        styler.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        styler.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        styler.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        styler.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        styler.setMarkerSize(5);
        styler.setDecimalPattern("#,##0.##");
    }

    private static void bound(XYChart chart, String name, double[] x, double[] y, Color colour, boolean logX,
                              boolean logY) {
        double[][] points = drawable(x, y, logX, logY);
        if (points[0].length == 0) {
            return;
        }
        XYSeries line = chart.addSeries(name, points[0], points[1]);
        line.setLineColor(colour);
        line.setLineStyle(thinDashes(3f));
        line.setMarker(SeriesMarkers.NONE);
        line.setShowInLegend(false);
    }

    /** A thin line of dashes {@code dash} long, 3 apart: a confidence bound, an event marker. */
    private static java.awt.BasicStroke thinDashes(float dash) {
        return new java.awt.BasicStroke(0.8f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_ROUND, 10f,
                new float[] {dash, 3f}, 0f);
    }

    /** The points a chart with these axes can draw. */
    private static double[][] drawable(double[] x, double[] y, boolean logX, boolean logY) {
        int n = Math.min(x.length, y.length);
        double[] xs = new double[n];
        double[] ys = new double[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (Double.isNaN(x[i]) || Double.isNaN(y[i]) || Double.isInfinite(y[i]) || (logX && x[i] <= 0)
                    || (logY && y[i] <= 0)) {
                continue;
            }
            xs[k] = x[i];
            ys[k] = y[i];
            k++;
        }
        return new double[][] {java.util.Arrays.copyOf(xs, k), java.util.Arrays.copyOf(ys, k)};
    }

    private static Color colourOf(String name, int others) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.startsWith(Results.CKC)) {
            return CKC;
        }
        if (lower.startsWith(Results.KAFKA)) {
            return KAFKA;
        }
        return OTHERS[others % OTHERS.length];
    }

    /**
     * The chart as an inline {@code <img>}, twice the pixels of its layout size so it stays sharp on
     * high-density screens; its title and series' names are its alternative text.
     */
    private static String image(Chart<?, ?> chart, String title, List<String> names) {
        BufferedImage pixels = new BufferedImage(2 * WIDTH, 2 * HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = pixels.createGraphics();
        g.scale(2, 2);
        chart.paint(g, WIDTH, HEIGHT);
        g.dispose();
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        try {
            ImageIO.write(pixels, "png", png);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "<img class=\"chart\" width=\"" + WIDTH + "\" height=\"" + HEIGHT + "\" alt=\""
                + escape(title + " (" + String.join(", ", names) + ")") + "\" src=\"data:image/png;base64,"
                + Base64.getEncoder().encodeToString(png.toByteArray()) + "\">";
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
