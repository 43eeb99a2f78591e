package io.ckc.jobs.sql;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.LogicalTypeFamily;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One grouping rule file, in one of two forms.
 *
 * <p><b>Short form</b>: the file is one query (after optional {@code SET}s) that says who is in which
 * group: a row {@code (mnId, grp)} per group a node is in. Without a window it runs over each node's
 * latest context report ({@code context_reports} is then that node's last row), so a node whose
 * latest report gives no row is in none of the rule's groups. With a window (the query selects
 * {@code window_start} and {@code window_end} from a windowing function over {@code context_reports}),
 * each window's rows are the memberships, leased until {@code -- lease-seconds:} (default: the
 * window's length) past the window's end. The runner wraps it into the records Java definers write:
 * key {@code <definer>/<mnId>}, the node's groups as one set, written only when they change (an
 * unwindowed rule within {@value #MINI_BATCH_MS} ms of the report).
 *
 * <p><b>Full form</b>: {@code INSERT}s into {@code group_advertisements} (usually inside
 * {@code EXECUTE STATEMENT SET}), run as written.
 *
 * <p>The definer id is the {@code -- definer:} header, else the {@code --definer} flag, else the file's
 * name. Line and column of an error are the file's.
 */
public final class GroupingRule {

    private static final Pattern HEADER = Pattern.compile("(?m)^--\\s*(definer|lease-seconds)\\s*:\\s*(\\S+)\\s*$");
    private static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+)");
    /** The database the short form's unwindowed query runs in: there, {@code context_reports} is each node's latest report. */
    static final String LATEST = "ckc_latest";
    private static final String TABLES = "`default_catalog`.`default_database`.";
    /** How long an unwindowed rule gathers changes before it writes them. */
    static final long MINI_BATCH_MS = 500;

    /** A statement of the file: its text (comments blanked) and where it starts in the file. */
    public record Statement(String text, int offset) {
        /** The text preceded by blanks and the file's line breaks, so a parser's line and column are the file's. */
        String positioned(String file) {
            return file.substring(0, offset).replaceAll("[^\n]", " ") + text;
        }

        boolean startsWith(String keyword) {
            return text.toUpperCase(Locale.ROOT).startsWith(keyword);
        }
    }

    /** An error in a rule, at a place of its file when the parser or validator named one. */
    public static final class RuleError extends IllegalArgumentException {
        private final String file;

        RuleError(String file, String message) {
            super(message);
            this.file = file;
        }

        /** {@code FILE:LINE:COLUMN: message}, or {@code FILE: message}. */
        public String describe() {
            Matcher at = POSITION.matcher(getMessage());
            return at.find() ? file + ":" + at.group(1) + ":" + at.group(2) + ": " + getMessage()
                    : file + ": " + getMessage();
        }
    }

    private final String file;
    private final String text;
    private final String definer;
    private final Long leaseSeconds;
    private final List<Statement> sets = new ArrayList<>();
    private final List<Statement> body = new ArrayList<>();

    /**
     * @param file    the file's name, for errors
     * @param text    its text, variables already substituted
     * @param definer the definer id when the file has no {@code -- definer:} header
     */
    public GroupingRule(String file, String text, String definer) {
        this.file = file;
        this.text = text;
        Matcher header = HEADER.matcher(text);
        String named = null;
        Long lease = null;
        while (header.find()) {
            if (header.group(1).equals("definer")) {
                named = header.group(2);
            } else {
                try {
                    lease = Long.parseLong(header.group(2));
                } catch (NumberFormatException e) {
                    throw new RuleError(file, "-- lease-seconds: must be a whole number of seconds, got " + header.group(2));
                }
            }
        }
        this.definer = named != null ? named : definer;
        this.leaseSeconds = lease;
        if (!io.ckc.protocol.kafka.Topics.isValidGroup(this.definer + "/x")) {
            throw new RuleError(file, "definer id '" + this.definer + "' is not valid in a group name (<definer>/<name>)");
        }
        for (Statement statement : SqlRunnerJob.locatedStatements(text)) {
            (SqlRunnerJob.SET.matcher(statement.text()).matches() ? sets : body).add(statement);
        }
        if (body.isEmpty()) {
            throw new RuleError(file, "no query: a rule is a SELECT of (mnId, grp), or INSERTs into group_advertisements");
        }
    }

    public String definer() {
        return definer;
    }

    /** An error of this rule's file. */
    RuleError error(String message) {
        return new RuleError(file, message);
    }

    /** One SELECT (or WITH) and nothing else but SETs. */
    public boolean isShort() {
        return body.size() == 1 && (body.get(0).startsWith("SELECT") || body.get(0).startsWith("WITH"));
    }

    /** The full form's statements, as written (SETs included, in order). */
    public List<String> fullFormStatements() {
        List<Statement> all = new ArrayList<>(sets);
        all.addAll(body);
        all.sort((a, b) -> Integer.compare(a.offset(), b.offset()));
        return all.stream().map(Statement::text).toList();
    }

    /** Applies the file's {@code SET}s to the environment. */
    public void applySets(TableEnvironment tables) {
        for (Statement set : sets) {
            Matcher m = SqlRunnerJob.SET.matcher(set.text());
            if (m.matches()) {
                tables.getConfig().getConfiguration().setString(m.group(1), m.group(2));
            }
        }
    }

    /**
     * The short form's advertisements: a query with {@code group_advertisements}' columns, over the tables
     * the environment has ({@code tables.sql} run). Plans the rule's own query to find out whether it is
     * windowed and to check its columns; a rule that does not parse or plan is a {@link RuleError} with
     * the file's line and column.
     */
    public String advertisements(TableEnvironment tables) {
        if (!isShort()) {
            throw new IllegalStateException("a full-form rule has no query to wrap");
        }
        String query = quoteRaw(body.get(0).positioned(text));
        ResolvedSchema schema = plan(tables, query);
        boolean windowed = column(schema, "window_end").isPresent();
        require(column(schema, "mnId"), "mnId", "STRING");
        require(column(schema, "grp"), "grp", "STRING");
        String def = definer.replace("'", "''");
        if (windowed) {
            require(column(schema, "window_start"), "window_start", "TIMESTAMP");
            String end = "UNIX_TIMESTAMP(CAST(window_end AS STRING))";
            String lease = leaseSeconds != null ? String.valueOf(leaseSeconds)
                    : "(" + end + " - UNIX_TIMESTAMP(CAST(window_start AS STRING)))";
            return "SELECT CONCAT('" + def + "/', mnId), '" + def + "', mnId, ARRAY_AGG(DISTINCT grp), " + end + " * 1000, ("
                    + end + " + " + lease + ") * 1000\n"
                    + "FROM (" + query + "\n) WHERE mnId IS NOT NULL AND grp IS NOT NULL AND grp <> ''\n"
                    + "GROUP BY mnId, window_start, window_end";
        }
        // Unwindowed: the query ran against each node's latest report (the database LATEST). Every node
        // that reported has one '' row besides the query's, so it has a row (its groups, maybe none)
        // even when the query gives it none; grouped by the record key, each change is one upsert.
        // A new report retracts the node's rows of the one before and adds its own: in mini-batches the
        // aggregate sees both at once and writes only a real change, never the groups half-way.
        tables.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED, true);
        tables.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ALLOW_LATENCY, Duration.ofMillis(MINI_BATCH_MS));
        tables.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_SIZE, 5_000L);
        return "SELECT `key`, '" + def + "', LAST_VALUE(mnId), ARRAY_REMOVE(ARRAY_AGG(DISTINCT grp), ''), "
                + "UNIX_TIMESTAMP() * 1000, CAST(NULL AS BIGINT)\n"
                + "FROM (\n"
                + "  SELECT CONCAT('" + def + "/', mnId) AS `key`, mnId, grp FROM (" + query + "\n)"
                + " WHERE mnId IS NOT NULL AND grp IS NOT NULL\n"
                + "  UNION ALL\n"
                + "  SELECT CONCAT('" + def + "/', mnId), mnId, '' FROM (SELECT DISTINCT mnId FROM " + TABLES
                + "context_reports)\n"
                + ")\nGROUP BY `key`";
    }

    /**
     * Plans the rule's query: windowed against the reports as they come, or else against each node's
     * latest report (the current database becomes {@link #LATEST}).
     */
    private ResolvedSchema plan(TableEnvironment tables, String query) {
        ResolvedSchema schema = schemaOf(tables, query, false);
        if (column(schema, "window_end").isPresent()) {
            return schema;
        }
        tables.executeSql("CREATE DATABASE IF NOT EXISTS " + LATEST);
        tables.executeSql("CREATE TEMPORARY VIEW IF NOT EXISTS " + LATEST + ".context_reports AS "
                + "SELECT mnId, gatewayId, latitude, longitude, battery, `raw`, `ts` FROM ("
                + "SELECT *, ROW_NUMBER() OVER (PARTITION BY mnId ORDER BY `ts` DESC) AS report_rank FROM "
                + TABLES + "context_reports) WHERE report_rank = 1");
        tables.useDatabase(LATEST);
        return schemaOf(tables, query, true);
    }

    private ResolvedSchema schemaOf(TableEnvironment tables, String query, boolean latest) {
        try {
            Table table = tables.sqlQuery(query);
            return table.getResolvedSchema();
        } catch (RuntimeException e) {
            String message = rootMessage(e);
            throw new RuleError(file, latest ? message + " (over each node's latest report)" : message);
        }
    }

    private void require(Optional<Column> column, String name, String type) {
        if (column.isEmpty()) {
            throw new RuleError(file, "the query must select a column " + name + " (" + type + "): one row per group a node is in, "
                    + "e.g. SELECT mnId, 'low' AS grp FROM context_reports WHERE battery < 0.2");
        }
        LogicalTypeFamily family = type.equals("STRING") ? LogicalTypeFamily.CHARACTER_STRING : LogicalTypeFamily.TIMESTAMP;
        if (!column.get().getDataType().getLogicalType().is(family)) {
            throw new RuleError(file, "column " + name + " must be " + type + ", is " + column.get().getDataType()
                    + (name.equals("grp") ? " (CAST it AS STRING)" : ""));
        }
    }

    private static Optional<Column> column(ResolvedSchema schema, String name) {
        return schema.getColumns().stream().filter(c -> c.getName().equalsIgnoreCase(name)).findFirst();
    }

    /**
     * {@code raw} is a keyword of Flink SQL (the RAW type), yet the tables' column for a report's whole
     * JSON: in a short-form query the bare word is quoted as a column, so that
     * {@code JSON_VALUE(raw, '$.context.attributes.role')} reads as written. Not inside quotes or
     * comments, and not {@code RAW(...)}, the type.
     */
    static String quoteRaw(String query) {
        StringBuilder out = new StringBuilder(query.length() + 8);
        char quote = 0;
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
                out.append(c);
            } else if (c == '\'' || c == '`' || c == '"') {
                quote = c;
                out.append(c);
            } else if (c == '-' && i + 1 < query.length() && query.charAt(i + 1) == '-') {
                int end = query.indexOf('\n', i);
                end = end < 0 ? query.length() : end;
                out.append(query, i, end);
                i = end - 1;
            } else if (query.regionMatches(true, i, "raw", 0, 3) && (i == 0 || !isWordChar(query.charAt(i - 1)))
                    && (i + 3 == query.length() || !isWordChar(query.charAt(i + 3)))
                    && !query.substring(i + 3).stripLeading().startsWith("(")) {
                out.append("`raw`");
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** The innermost cause's message: Flink wraps the parser's and validator's, which name the place. */
    static String rootMessage(Throwable e) {
        String message = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && POSITION.matcher(t.getMessage()).find()) {
                message = t.getMessage();
            }
        }
        return message == null ? e.toString() : message.replaceAll("\\s+", " ").trim();
    }
}
