package io.ckc.gateway.core;

import org.junit.jupiter.api.Test;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.Logger;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class RepeatedWarningTest {

    private final List<String> warnings = new ArrayList<>();

    /** A logger that keeps the warnings it is given, formatted. */
    private Logger keepingLogger() {
        return (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] {Logger.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("warn") && args.length == 2 && args[1] instanceof Object[] values) {
                        warnings.add(MessageFormatter.arrayFormat((String) args[0], values).getMessage());
                    }
                    return method.getReturnType() == boolean.class ? Boolean.FALSE : null;
                });
    }

    @Test
    void theFirstIsLoggedThenOnePerIntervalWithTheCountOfThoseNotLogged() {
        Logger log = keepingLogger();
        AtomicLong clock = new AtomicLong(5_000_000_000L);
        RepeatedWarning warning = new RepeatedWarning(log, 10, TimeUnit.SECONDS, clock::get);
        for (int i = 0; i < 300; i++) {
            warning.warn("write to {} failed", "app.echo");
        }
        assertThat(warnings).containsExactly("write to app.echo failed");

        clock.addAndGet(TimeUnit.SECONDS.toNanos(9));
        warning.warn("write to {} failed", "app.echo");
        assertThat(warnings).as("9 s later: still within the interval").hasSize(1);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        warning.warn("write to {} failed", "app.echo");
        assertThat(warnings).containsExactly("write to app.echo failed",
                "write to app.echo failed (300 more like it since the last)");
    }
}
