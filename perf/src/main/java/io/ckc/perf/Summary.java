package io.ckc.perf;

import org.apache.commons.math3.distribution.TDistribution;

import java.util.Arrays;

/**
 * Mean, standard deviation and 95% confidence interval of a set of samples, the way the
 * load-testing study summarises its 30 measurements per load level (Student's t with n - 1
 * degrees of freedom).
 *
 * @param ci95 half-width of the 95% confidence interval of the mean; NaN for fewer than 2 samples
 */
record Summary(int n, double mean, double sd, double ci95) {

    static Summary of(double[] samples) {
        double[] values = Arrays.stream(samples).filter(v -> !Double.isNaN(v)).toArray();
        int n = values.length;
        if (n == 0) {
            return new Summary(0, Double.NaN, Double.NaN, Double.NaN);
        }
        double mean = Arrays.stream(values).average().orElse(Double.NaN);
        if (n == 1) {
            return new Summary(1, mean, Double.NaN, Double.NaN);
        }
        double squares = 0;
        for (double v : values) {
            squares += (v - mean) * (v - mean);
        }
        double sd = Math.sqrt(squares / (n - 1));
        double t = new TDistribution(n - 1).inverseCumulativeProbability(0.975);
        return new Summary(n, mean, sd, t * sd / Math.sqrt(n));
    }

    double low() {
        return mean - ci95;
    }

    double high() {
        return mean + ci95;
    }
}
