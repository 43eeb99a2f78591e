package io.ckc.perf;

import org.apache.commons.math3.stat.regression.SimpleRegression;

import java.util.Locale;

/**
 * Whether a quantity sampled over a run grows: the least-squares slope of value against time, per hour, with its 95%
 * confidence interval (Student's t on n - 2 degrees of freedom, Commons Math's {@link SimpleRegression}). It
 * {@linkplain #grows() grows} when the whole interval lies above zero: a slope the noise could explain is no growth.
 *
 * @param perHour the slope, in the quantity's unit per hour
 * @param ciPerHour half the width of the slope's 95% confidence interval; NaN with fewer than 3 samples
 * @param first the fitted value at the first sample
 * @param samples how many samples were fitted
 */
record Trend(double perHour, double ciPerHour, double first, int samples) {

    /** The trend of {@code values} sampled at {@code minutes}. */
    static Trend of(double[] minutes, double[] values) {
        if (minutes.length != values.length) {
            throw new IllegalArgumentException(minutes.length + " times for " + values.length + " values");
        }
        SimpleRegression fit = new SimpleRegression();
        for (int i = 0; i < minutes.length; i++) {
            if (!Double.isNaN(values[i])) {
                fit.addData(minutes[i], values[i]);
            }
        }
        int n = (int) fit.getN();
        if (n < 2) {
            return new Trend(Double.NaN, Double.NaN, n == 1 ? fit.getIntercept() : Double.NaN, n);
        }
        double ci = n < 3 ? Double.NaN : fit.getSlopeConfidenceInterval(0.05) * 60;
        double firstMinute = minutes[0];
        return new Trend(fit.getSlope() * 60, ci, fit.predict(firstMinute), n);
    }

    /** The whole 95% interval of the slope is above zero. */
    boolean grows() {
        return !Double.isNaN(ciPerHour) && perHour - ciPerHour > 0;
    }

    /** {@code slope±ci/h} in the given format, e.g. {@code 1.2±3.4/h}. */
    String describe(String format) {
        return String.format(Locale.ROOT, format + "±" + format + "/h", perHour, ciPerHour);
    }
}
