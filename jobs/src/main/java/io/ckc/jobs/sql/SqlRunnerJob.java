package io.ckc.jobs.sql;

import io.ckc.jobs.Scaling;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.ParameterTool;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a grouping rule written in Flink SQL (paper section 7, without Java): the table definitions
 * ({@code sql/tables.sql}) and then the rule's file, as one Flink job. Handles {@code SET 'k' = 'v'},
 * DDL and views, and {@code INSERT}s, alone or inside {@code EXECUTE STATEMENT SET BEGIN ... END};
 * all of a file's INSERTs run together as one job.
 *
 * <p>Files are read from the file system, or else from the {@code sql/} folder packed in the job jar,
 * so {@code --sql geofence.sql} works on any cluster. Before parsing, {@code ${name}} and
 * {@code ${name:-default}} are replaced by the job's flag of that name or the default; a variable
 * with neither is an error. Always defined: {@code bootstrap} (127.0.0.1:9092), {@code topic-prefix}
 * (ckc.) and {@code rule} (the rule file's name without {@code .sql}).
 *
 * <p>The job is named {@code ckc-sql-<rule>}. Flags: {@code --sql} (the rule file, required), {@code --tables} (tables.sql; {@code none} for
 * a file that defines its own), {@code --parallelism}, {@code --max-parallelism} (see {@link Scaling}), and any variable the files use.
 */
public final class SqlRunnerJob {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)(?::-([^}]*))?}");
    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");
    private static final Pattern STATEMENT_SET_BEGIN = Pattern.compile("(?is)EXECUTE\\s+STATEMENT\\s+SET\\s+BEGIN\\s+(.*)");

    public static final String NAME_PREFIX = "ckc-sql-";

    private final String name;
    private final String script;
    private final Scaling scaling;

    /** A job of the given (already substituted) script. */
    public SqlRunnerJob(String name, String script, Scaling scaling) {
        this.name = name;
        this.script = script;
        this.scaling = scaling;
    }

    public static SqlRunnerJob fromArgs(ParameterTool params) {
        String rule = params.getRequired("sql");
        Map<String, String> variables = variables(params.toMap(), rule);
        String tablesFile = params.get("tables", "tables.sql");
        StringBuilder script = new StringBuilder();
        if (!tablesFile.equals("none")) {
            script.append(read(tablesFile)).append('\n');
        }
        script.append(read(rule));
        return new SqlRunnerJob(NAME_PREFIX + variables.get("rule"), substitute(script.toString(), variables),
                Scaling.fromArgs(params, -1));
    }

    public String name() {
        return name;
    }

    /** Runs the script's SETs and DDL and adds its INSERTs to the environment as one pipeline. */
    public void build(StreamExecutionEnvironment env) {
        scaling.applyTo(env);
        StreamStatementSet inserts = run(StreamTableEnvironment.create(env), script);
        if (inserts == null) {
            throw new IllegalArgumentException(name + " has no INSERT: nothing to run");
        }
        inserts.attachAsDataStream();
    }

    public void execute(StreamExecutionEnvironment env) throws Exception {
        build(env);
        env.execute(name);
    }

    public static void main(String[] args) throws Exception {
        fromArgs(ParameterTool.fromArgs(args)).execute(StreamExecutionEnvironment.getExecutionEnvironment());
    }

    /** The flags plus the variables every file may use. */
    public static Map<String, String> variables(Map<String, String> flags, String ruleFile) {
        Map<String, String> all = new HashMap<>();
        all.put("bootstrap", "127.0.0.1:9092");
        all.put("topic-prefix", "ckc.");
        String name = Path.of(ruleFile).getFileName().toString();
        all.put("rule", name.endsWith(".sql") ? name.substring(0, name.length() - 4) : name);
        flags.forEach((k, v) -> {
            if (v != null && !v.startsWith("__")) { // a flag without value: ParameterTool's "__NO_VALUE_KEY"
                all.put(k, v);
            }
        });
        return all;
    }

    /**
     * Executes a script's SETs and DDL at once and gathers its INSERTs into one statement set;
     * null when the script has no INSERT.
     */
    public static StreamStatementSet run(StreamTableEnvironment tables, String script) {
        List<String> inserts = new ArrayList<>();
        for (String statement : statements(script)) {
            Matcher set = SET.matcher(statement);
            Matcher statementSet = STATEMENT_SET_BEGIN.matcher(statement);
            if (set.matches()) {
                tables.getConfig().getConfiguration().setString(set.group(1), set.group(2));
            } else if (statementSet.matches()) {
                inserts.add(statementSet.group(1).trim()); // the first INSERT of the set
            } else if (statement.equalsIgnoreCase("END")) {
                continue; // the set's INSERTs were collected one by one
            } else if (startsWith(statement, "INSERT")) {
                inserts.add(statement);
            } else {
                tables.executeSql(statement);
            }
        }
        if (inserts.isEmpty()) {
            return null;
        }
        StreamStatementSet job = tables.createStatementSet();
        inserts.forEach(job::addInsertSql);
        return job;
    }

    /**
     * Splits a script into statements at semicolons outside quotes, without comments. Blank
     * statements are dropped.
     */
    public static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < script.length(); i++) {
            char c = script.charAt(i);
            if (quote != 0) {
                current.append(c);
                if (c == quote) {
                    quote = 0; // a doubled quote closes and reopens: still right
                }
            } else if (c == '\'' || c == '`' || c == '"') {
                quote = c;
                current.append(c);
            } else if (c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-') {
                while (i < script.length() && script.charAt(i) != '\n') {
                    i++;
                }
                current.append('\n');
            } else if (c == ';') {
                add(statements, current);
            } else {
                current.append(c);
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unclosed " + quote + " quote in the SQL script");
        }
        add(statements, current);
        return statements;
    }

    /** Replaces {@code ${name}} and {@code ${name:-default}}; an unknown variable without default is an error. */
    public static String substitute(String script, Map<String, String> variables) {
        Matcher m = VARIABLE.matcher(script);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = variables.get(m.group(1));
            if (value == null) {
                value = m.group(2);
            }
            if (value == null) {
                throw new IllegalArgumentException("the SQL uses ${" + m.group(1) + "}: give it as --" + m.group(1));
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** A file on disk, or else the one of that name packed in the job jar under sql/. */
    public static String read(String file) {
        Path path = Path.of(file);
        try {
            if (Files.isRegularFile(path)) {
                return Files.readString(path);
            }
            try (InputStream packed = SqlRunnerJob.class.getClassLoader()
                    .getResourceAsStream("sql/" + path.getFileName())) {
                if (packed == null) {
                    throw new IllegalArgumentException("no SQL file " + file + " (nor sql/" + path.getFileName()
                            + " in the job jar)");
                }
                return new String(packed.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static void add(List<String> statements, StringBuilder current) {
        String statement = current.toString().trim();
        if (!statement.isEmpty()) {
            statements.add(statement);
        }
        current.setLength(0);
    }

    private static boolean startsWith(String statement, String keyword) {
        return statement.toUpperCase(Locale.ROOT).startsWith(keyword);
    }
}
