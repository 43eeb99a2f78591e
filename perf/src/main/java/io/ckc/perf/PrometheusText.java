package io.ckc.perf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Prometheus text exposition (version 0.0.4), read back into samples: what the gateways' metrics endpoints and
 * Flink's reporter write, and what {@link GatewayMetricsReader} and {@link FlinkPrometheus} read. Hand-written because
 * the Prometheus Java client only writes this format.
 */
final class PrometheusText {

    private PrometheusText() {
    }

    /** One sample: its metric name, labels and value. */
    record Sample(String name, Map<String, String> labels, double value) {

        /** A label as Flink named it before its reporter wrote each {@code -} as {@code _}; "?" if missing. */
        String named(String label) {
            return labels.getOrDefault(label, "?").replace('_', '-');
        }
    }

    /**
     * The samples of an exposition: {@code name{label="value",...} value [timestamp]}, comments and blank lines
     * skipped, label values unescaped ({@code \\}, {@code \"}, {@code \n}).
     *
     * @throws IllegalArgumentException naming the line, for a line that is not a sample
     */
    static List<Sample> parse(String exposition) {
        List<Sample> samples = new ArrayList<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            try {
                samples.add(sample(line));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not a Prometheus sample: '" + line + "'", e);
            }
        }
        return samples;
    }

    /** The sum of the samples of metric {@code name} (all of them). */
    static double sum(List<Sample> samples, String name) {
        return samples.stream().filter(s -> s.name().equals(name)).mapToDouble(Sample::value).sum();
    }

    /** The sum of the samples of metric {@code name} whose label {@code label} is {@code value}. */
    static double sum(List<Sample> samples, String name, String label, String value) {
        return samples.stream().filter(s -> s.name().equals(name) && value.equals(s.labels().get(label)))
                .mapToDouble(Sample::value).sum();
    }

    private static Sample sample(String line) {
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        Map<String, String> labels = new LinkedHashMap<>();
        String name;
        int end;
        if (brace >= 0 && (space < 0 || brace < space)) {
            name = line.substring(0, brace);
            end = labels(line, brace + 1, labels);
        } else if (space > 0) {
            name = line.substring(0, space);
            end = space;
        } else {
            throw new IllegalArgumentException("no value");
        }
        return new Sample(name, labels, Double.parseDouble(line.substring(end).trim().split(" ")[0]));
    }

    /** Reads {@code label="value",...}} from {@code from} into {@code labels}; returns the index after the '}'. */
    private static int labels(String line, int from, Map<String, String> labels) {
        int i = from;
        while (line.charAt(i) != '}') {
            if (line.charAt(i) == ',' || line.charAt(i) == ' ') {
                i++;
                continue;
            }
            int equals = line.indexOf('=', i);
            String label = line.substring(i, equals).trim();
            StringBuilder value = new StringBuilder();
            i = equals + 2; // past ="
            while (line.charAt(i) != '"') {
                char c = line.charAt(i++);
                if (c == '\\') {
                    char escaped = line.charAt(i++);
                    value.append(escaped == 'n' ? '\n' : escaped);
                } else {
                    value.append(c);
                }
            }
            labels.put(label, value.toString());
            i++; // past the closing "
        }
        return i + 1;
    }
}
