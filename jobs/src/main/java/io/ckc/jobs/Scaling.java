package io.ckc.jobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;

/**
 * How wide a CKC job runs, from its flags: {@code --parallelism} (default: the job's own, or the
 * environment's when that is -1) and {@code --max-parallelism} (default 128). The max parallelism is
 * the number of key groups the job's keyed state is split into; it is fixed for the life of that
 * state, and a savepoint restores at any parallelism up to it. Every job sets it explicitly, so a
 * rescale never depends on what Flink would derive from the first parallelism.
 */
public record Scaling(int parallelism, int maxParallelism) {

    public static final int DEFAULT_MAX_PARALLELISM = 128;
    /** Flink's upper bound for the max parallelism (2^15). */
    static final int UPPER_BOUND = 1 << 15;

    public Scaling {
        if (maxParallelism < 1 || maxParallelism > UPPER_BOUND) {
            throw new IllegalArgumentException("--max-parallelism must be between 1 and " + UPPER_BOUND + ", got "
                    + maxParallelism);
        }
        if (parallelism == 0 || parallelism < -1 || parallelism > maxParallelism) {
            throw new IllegalArgumentException("--parallelism must be between 1 and the max parallelism "
                    + maxParallelism + ", got " + parallelism);
        }
    }

    /** The flags' scaling; {@code defaultParallelism} -1: the environment's. */
    public static Scaling fromArgs(ParameterTool params, int defaultParallelism) {
        return new Scaling(params.getInt("parallelism", defaultParallelism),
                params.getInt("max-parallelism", DEFAULT_MAX_PARALLELISM));
    }

    public void applyTo(StreamExecutionEnvironment env) {
        env.setMaxParallelism(maxParallelism);
        if (parallelism > 0) {
            env.setParallelism(parallelism);
        }
    }
}
