package io.ckc.protocol.config;

import java.util.Map;

/**
 * One environment variable a CKC process reads, declared once: the code reads it through this
 * declaration and {@code docs/configuration.md} is generated from the same declarations, so the two
 * cannot drift.
 *
 * @param name         the variable, {@code CKC_...}
 * @param defaultValue the value when the variable is unset or blank; null where the default is derived
 *                     from another setting or from the machine (then {@code defaultText} says how)
 * @param defaultText  the default as the documentation shows it
 * @param meaning      one sentence or two for the documentation
 */
public record Setting(String name, String defaultValue, String defaultText, String meaning) {

    public Setting {
        if (!name.startsWith("CKC_")) {
            throw new IllegalArgumentException("a setting's name starts with CKC_: " + name);
        }
    }

    /** A setting whose default is a literal, shown as it is. */
    public static Setting of(String name, Object defaultValue, String meaning) {
        return new Setting(name, String.valueOf(defaultValue), String.valueOf(defaultValue), meaning);
    }

    /** A setting without a default: unset means "none". */
    public static Setting optional(String name, String meaning) {
        return new Setting(name, null, "none", meaning);
    }

    /** A setting whose default the reader derives (from another setting, from the machine). */
    public static Setting derived(String name, String defaultText, String meaning) {
        return new Setting(name, null, defaultText, meaning);
    }

    /** The value in {@code env}, trimmed, or the literal default (null where there is none). */
    public String string(Map<String, String> env) {
        String value = env.get(name);
        return value == null || value.isBlank() ? defaultValue : value.trim();
    }

    /** The value in {@code env}, or {@code derived} where it is unset and the default is derived. */
    public String string(Map<String, String> env, String derived) {
        String value = string(env);
        return value == null ? derived : value;
    }

    public int integer(Map<String, String> env) {
        return parseInt(string(env));
    }

    public int integer(Map<String, String> env, int derived) {
        String value = string(env);
        return value == null ? derived : parseInt(value);
    }

    public boolean bool(Map<String, String> env) {
        String value = string(env);
        if (!"true".equalsIgnoreCase(value) && !"false".equalsIgnoreCase(value)) {
            throw new IllegalArgumentException(name + " must be true or false, got '" + value + "'");
        }
        return Boolean.parseBoolean(value);
    }

    private int parseInt(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, got '" + value + "'", e);
        }
    }
}
