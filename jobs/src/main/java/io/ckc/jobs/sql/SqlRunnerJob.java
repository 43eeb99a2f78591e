package io.ckc.jobs.sql;

import io.ckc.jobs.JobDirectories;
import io.ckc.jobs.Scaling;
import org.apache.flink.configuration.Configuration;
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
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Runs a grouping rule written in Flink SQL (paper section 7, without Java): the table definitions
 * ({@code sql/tables.sql}) and then the rule's file, as one Flink job. A rule is one query in the
 * short form, wrapped into advertisements and dead letters (see {@link GroupingRule}), or the full
 * form: {@code SET 'k' = 'v'}, DDL and views, and {@code INSERT}s, alone or inside
 * {@code EXECUTE STATEMENT SET BEGIN ... END}; all of a file's INSERTs run together as one job.
 *
 * <p>Files are read from the file system, or else from the {@code sql/} folder packed in the job jar,
 * so {@code --sql geofence.sql} works on any cluster. Before parsing, {@code ${name}} and
 * {@code ${name:-default}} are replaced by the job's flag of that name or the default; a variable
 * with neither is an error. Always defined: {@code bootstrap} (127.0.0.1:9092), {@code topic-prefix}
 * (ckc.) and {@code rule} (the rule file's name without {@code .sql}).
 *
 * <p>The job is named {@code ckc-sql-<rule>} and labelled with its rule and definer id. Flags:
 * {@code --sql} (the rule file, required), {@code --tables} (tables.sql; {@code none} for a file that
 * defines its own), {@code --definer} (a short-form rule's definer id when its file has no header),
 * {@code --parallelism}, {@code --max-parallelism} (see {@link Scaling}), and any variable the files use.
 */
public final class SqlRunnerJob {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)(?::-([^}]*))?}");
    static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");
    private static final Pattern STATEMENT_SET_BEGIN = Pattern.compile("(?is)EXECUTE\\s+STATEMENT\\s+SET\\s+BEGIN\\s+(.*)");

    public static final String NAME_PREFIX = "ckc-sql-";
    /** Labels of a rule's job in its global job parameters (the REST API's user config). */
    public static final String RULE_LABEL = "ckc.rule";
    public static final String DEFINER_LABEL = "ckc.definer";
    static final String DEFAULT_DATABASE = "`default_catalog`.`default_database`.";

    private final String name;
    private final String tables;
    private final GroupingRule rule;
    private final Scaling scaling;

    /**
     * A job of a rule, after the tables' script (both already substituted; {@code tables} may be empty
     * for a full-form rule that defines its own).
     */
    public SqlRunnerJob(String name, String tables, GroupingRule rule, Scaling scaling) {
        this.name = name;
        this.tables = tables;
        this.rule = rule;
        this.scaling = scaling;
    }

    public static SqlRunnerJob fromArgs(ParameterTool params) {
        String file = params.getRequired("sql");
        Map<String, String> variables = variables(params.toMap(), file);
        String tablesFile = params.get("tables", "tables.sql");
        String tables = tablesFile.equals("none") ? "" : substitute(read(tablesFile), variables);
        GroupingRule rule = new GroupingRule(file, substitute(read(file), variables),
                variables.getOrDefault("definer", variables.get("rule")));
        return new SqlRunnerJob(NAME_PREFIX + variables.get("rule"), tables, rule, Scaling.fromArgs(params, -1));
    }

    public String name() {
        return name;
    }

    public GroupingRule rule() {
        return rule;
    }

    /** The tables' script it runs before the rule (substituted; empty with {@code --tables none}). */
    public String tables() {
        return tables;
    }

    /** {@link #plan(StreamTableEnvironment, String, GroupingRule)} of this job's tables and rule. */
    public StreamStatementSet plan(StreamTableEnvironment env) {
        return plan(env, tables, rule);
    }

    /** Plans the rule over the tables and adds it to the environment as one pipeline. */
    public void build(StreamExecutionEnvironment env) {
        scaling.applyTo(env);
        JobDirectories.applyTo(env, name);
        Configuration labels = new Configuration(); // shown by the REST API: ./ckc sql list reads them
        labels.setString(RULE_LABEL, name.substring(NAME_PREFIX.length()));
        labels.setString(DEFINER_LABEL, rule.definer());
        env.getConfig().setGlobalJobParameters(labels);
        plan(StreamTableEnvironment.create(env)).attachAsDataStream();
    }

    /**
     * The tables' script run, then the rule: a short-form rule wrapped into its advertisements and dead
     * letters, a full-form one as written. A rule that does not parse or plan is a {@link GroupingRule.RuleError}.
     */
    public static StreamStatementSet plan(StreamTableEnvironment env, String tables, GroupingRule rule) {
        StreamStatementSet tableInserts = run(env, tables);
        if (tableInserts != null) {
            throw new IllegalArgumentException("the tables' script has INSERTs: only a rule writes");
        }
        if (!rule.isShort()) {
            StreamStatementSet inserts;
            try {
                inserts = run(env, String.join(";\n", rule.fullFormStatements()));
            } catch (RuntimeException e) {
                throw rule.error(GroupingRule.rootMessage(e));
            }
            if (inserts == null) {
                throw rule.error("no INSERT and not one SELECT: nothing to run");
            }
            return inserts;
        }
        rule.applySets(env);
        String advertisements = rule.advertisements(env);
        StreamStatementSet inserts = env.createStatementSet();
        inserts.addInsertSql("INSERT INTO " + DEFAULT_DATABASE + "group_advertisements " + advertisements);
        inserts.addInsertSql("INSERT INTO " + DEFAULT_DATABASE + "dead_letters SELECT * FROM " + DEFAULT_DATABASE
                + "malformed_context");
        return inserts;
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
        String clientConfig = flags.get(io.ckc.jobs.io.KafkaIo.CLIENT_CONFIG_FLAG);
        if (clientConfig == null && flags.get(io.ckc.jobs.JobCatalog.KAFKA_CREDENTIALS_FLAG) != null) {
            clientConfig = io.ckc.protocol.kafka.KafkaPrincipals.clientConfigFile(
                    Path.of(flags.get(io.ckc.jobs.JobCatalog.KAFKA_CREDENTIALS_FLAG)), io.ckc.protocol.kafka.KafkaAccess.RULES)
                    .toString();
        }
        all.put("kafka-security", kafkaSecurityOptions(io.ckc.jobs.io.KafkaIo.security(clientConfig)));
        flags.forEach((k, v) -> {
            if (v != null && !v.startsWith("__")) { // a flag without value: ParameterTool's "__NO_VALUE_KEY"
                all.put(k, v);
            }
        });
        return all;
    }

    /**
     * The Kafka connector options for this process's client security settings, one
     * {@code 'properties.<key>' = '<value>',} line each, for {@code ${kafka-security}} in a WITH clause.
     */
    static String kafkaSecurityOptions(Properties security) {
        return security.stringPropertyNames().stream().sorted()
                .map(key -> "'properties." + key + "' = '" + security.getProperty(key).replace("'", "''") + "',")
                .collect(Collectors.joining("\n  "));
    }

    /**
     * Executes a script's SETs and DDL at once and gathers its INSERTs into one statement set;
     * null when the script has no INSERT.
     */
    public static StreamStatementSet run(StreamTableEnvironment tables, String script) {
        if (script.isBlank()) {
            return null;
        }
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
        return locatedStatements(script).stream().map(GroupingRule.Statement::text).toList();
    }

    /** {@link #statements}, each with the offset of its first character in the script. */
    public static List<GroupingRule.Statement> locatedStatements(String script) {
        List<GroupingRule.Statement> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int start = -1;
        char quote = 0;
        for (int i = 0; i < script.length(); i++) {
            char c = script.charAt(i);
            if (start < 0 && !Character.isWhitespace(c) && c != ';'
                    && !(c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-')) {
                start = i;
            }
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
                add(statements, current, start);
                start = -1;
            } else {
                current.append(c);
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unclosed " + quote + " quote in the SQL script");
        }
        add(statements, current, start);
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

    /** A file on disk, or else the one packed in the job jar under sql/ (by its path there, e.g. full-form/battery.sql, or its name). */
    public static String read(String file) {
        Path path = Path.of(file);
        try {
            if (Files.isRegularFile(path)) {
                return Files.readString(path);
            }
            ClassLoader loader = SqlRunnerJob.class.getClassLoader();
            InputStream found = path.isAbsolute() ? null : loader.getResourceAsStream("sql/" + file.replace('\\', '/'));
            try (InputStream packed = found != null ? found : loader.getResourceAsStream("sql/" + path.getFileName())) {
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

    private static void add(List<GroupingRule.Statement> statements, StringBuilder current, int start) {
        String statement = current.toString().trim();
        if (!statement.isEmpty()) {
            statements.add(new GroupingRule.Statement(statement, start));
        }
        current.setLength(0);
    }

    private static boolean startsWith(String statement, String keyword) {
        return statement.toUpperCase(Locale.ROOT).startsWith(keyword);
    }
}
