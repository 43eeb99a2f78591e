package io.ckc.perf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;

/**
 * What a right answer to a request is, for {@code ./ckc load --expect RULE}: {@code unchanged} (the payload back as
 * it was, as the echo answers), {@code upper} (the request's text in upper case), {@code prefix:TEXT} (TEXT, then the
 * request's text), {@code regex:RE} (the answer's text matches RE, whole) or {@code class:NAME} (a class of yours on
 * the classpath, a {@code BiPredicate<byte[], byte[]>} over request and answer, with a constructor without arguments).
 * Texts are UTF-8.
 */
@FunctionalInterface
interface AnswerRule {

    boolean accepts(byte[] request, byte[] answer);

    static AnswerRule parse(String rule, ClassLoader loader) {
        if (rule.equals("unchanged")) {
            return Arrays::equals;
        }
        if (rule.equals("upper")) {
            return (request, answer) -> text(answer).equals(text(request).toUpperCase(Locale.ROOT));
        }
        if (rule.startsWith("prefix:")) {
            String prefix = rule.substring("prefix:".length());
            return (request, answer) -> text(answer).equals(prefix + text(request));
        }
        if (rule.startsWith("regex:")) {
            Pattern pattern = Pattern.compile(rule.substring("regex:".length()));
            return (request, answer) -> pattern.matcher(text(answer)).matches();
        }
        if (rule.startsWith("class:")) {
            return ofClass(rule.substring("class:".length()), loader);
        }
        throw new IllegalArgumentException("--expect is unchanged, upper, prefix:TEXT, regex:RE or class:NAME, not '"
                + rule + "'");
    }

    @SuppressWarnings("unchecked")
    private static AnswerRule ofClass(String name, ClassLoader loader) {
        Object predicate;
        try {
            predicate = Class.forName(name, true, loader).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException("--expect class:" + name + ": cannot make one (" + e + "); give its jar "
                    + "with --classpath", e);
        }
        if (!(predicate instanceof BiPredicate<?, ?>)) {
            throw new IllegalArgumentException("--expect class:" + name + " is not a BiPredicate<byte[], byte[]>");
        }
        BiPredicate<byte[], byte[]> check = (BiPredicate<byte[], byte[]>) predicate;
        return check::test;
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
