package io.ckc.perf;

import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.regression.SimpleRegression;

import java.util.Locale;

/**
 * Whether a quantity sampled over a run grows: the least-squares slope of value against time, per hour, with its
 * confidence interval (95% unless asked otherwise). It {@linkplain #grows() grows} when the whole interval lies above
 * zero: a slope the noise could explain is no growth. A run that judges many series at once asks each for more
 * confidence, so that the run as a whole is wrong as rarely as one series would be ({@link SoakCommand#judge}).
 *
 * <p>The interval allows for samples that are not independent. A process's memory or open files sampled each minute
 * wander: a value above the line is followed by another above it (lag-1 autocorrelation of the residuals {@code r1}
 * above 0), and the usual interval (Student's t on n - 2 degrees of freedom, which assumes independent residuals) is
 * then too narrow: on such noise with no trend at all, 45 samples at {@code r1} 0.8 are judged growing about a quarter
 * of the time instead of 2.5%. As in trend tests of climate series (Santer et al. 2000, "Statistical significance of
 * trends and trend differences in layer-average atmospheric temperature time series", J. Geophys. Res. 105(D6)), the
 * samples count as {@code n (1 - r1) / (1 + r1)} independent ones ({@link #effectiveSamples()}): the slope's standard
 * error grows by {@code sqrt((n - 2) / (n_eff - 2))} and t has {@code n_eff - 2} degrees of freedom. Independent
 * residuals ({@code r1} at most 0) leave the interval as it was; a steady leak with noise still grows
 * ({@code TrendTest}).
 *
 * @param perHour the slope, in the quantity's unit per hour
 * @param ciPerHour half the width of the slope's confidence interval; NaN with fewer than 3 samples
 * @param first the fitted value at the first sample
 * @param samples how many samples were fitted
 * @param independentCiPerHour the interval's half width were the samples independent (n - 2 degrees of freedom)
 * @param effectiveSamples how many independent samples the fitted ones are worth, from 3 to {@code samples}
 * @param confidence the interval's confidence: 0.95 for 95%
 */
record Trend(double perHour, double ciPerHour, double first, int samples, double independentCiPerHour,
             double effectiveSamples, double confidence) {

    /** The confidence of an interval unless one is asked for. */
    static final double CONFIDENCE = 0.95;

    /** Fewest independent samples an interval is computed on: one degree of freedom. */
    private static final double MIN_EFFECTIVE_SAMPLES = 3;

    /** The trend of {@code values} sampled at {@code minutes}, with its 95% interval. */
    static Trend of(double[] minutes, double[] values) {
        return of(minutes, values, CONFIDENCE);
    }

    /** The trend of {@code values} sampled at {@code minutes}, with its interval at {@code confidence}. */
    static Trend of(double[] minutes, double[] values, double confidence) {
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("a confidence of " + confidence + " is not between 0 and 1");
        }
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
        if (n < 3) {
            double first = n == 0 ? Double.NaN : n == 1 ? fit.getIntercept() : fit.predict(minutes[0]);
            return new Trend(n == 2 ? fit.getSlope() * 60 : Double.NaN, Double.NaN, first, n, Double.NaN, n,
                    confidence);
        }
        double independentCi = fit.getSlopeConfidenceInterval(1 - confidence) * 60;
        double effective = effectiveSamples(n, lagOneAutocorrelation(fit, minutes, values));
        double ci = independentCi;
        if (effective < n) {
            double t = new TDistribution(effective - 2).inverseCumulativeProbability(1 - (1 - confidence) / 2);
            ci = t * fit.getSlopeStdErr() * Math.sqrt((n - 2) / (effective - 2)) * 60;
        }
        return new Trend(fit.getSlope() * 60, ci, fit.predict(minutes[0]), n, independentCi, effective, confidence);
    }

    /** {@code n (1 - r1) / (1 + r1)}, within 3 and {@code n}. */
    static double effectiveSamples(int n, double r1) {
        if (!(r1 > 0)) {
            return n;
        }
        return Math.max(MIN_EFFECTIVE_SAMPLES, Math.min(n, n * (1 - r1) / (1 + r1)));
    }

    /** The lag-1 autocorrelation of the residuals around the fitted line, in the order sampled. */
    private static double lagOneAutocorrelation(SimpleRegression fit, double[] minutes, double[] values) {
        double sumOfProducts = 0;
        double sumOfSquares = 0;
        double previous = Double.NaN;
        for (int i = 0; i < minutes.length; i++) {
            if (Double.isNaN(values[i])) {
                continue;
            }
            double residual = values[i] - fit.predict(minutes[i]);
            sumOfSquares += residual * residual;
            if (!Double.isNaN(previous)) {
                sumOfProducts += previous * residual;
            }
            previous = residual;
        }
        return sumOfSquares == 0 ? 0 : sumOfProducts / sumOfSquares;
    }

    /** The slope's whole interval is above zero. */
    boolean grows() {
        return !Double.isNaN(ciPerHour) && perHour - ciPerHour > 0;
    }

    /**
     * {@link #describe(String)} with two decimals, or two significant digits where two decimals would print a slope
     * that is not zero as 0.00 (the echo job's live state grew 0.0023 MB/h, judged growing, in the soak of 2026-11-29
     * 21:56, and read "0.00±0.00").
     */
    String describe() {
        boolean tiny = perHour != 0 && Math.abs(perHour) < 0.005;
        return describe(tiny ? "%.2g" : "%.2f");
    }

    /**
     * {@code slope±ci/h} in the given format, e.g. {@code 1.2±3.4/h}, and where the samples are worth fewer
     * independent ones, the interval were they independent and what they are worth: {@code 1.2±3.4/h
     * (independent: ±1.1, n_eff=9.3)}.
     */
    String describe(String format) {
        String slope = String.format(Locale.ROOT, format + "±" + format + "/h", perHour, ciPerHour);
        if (effectiveSamples >= samples || Double.isNaN(ciPerHour)) {
            return slope;
        }
        return slope + String.format(Locale.ROOT, " (independent: ±" + format + ", n_eff=%.1f)", independentCiPerHour,
                effectiveSamples);
    }
}
