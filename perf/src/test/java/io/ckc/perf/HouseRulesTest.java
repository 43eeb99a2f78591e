package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The house's rules for its pages (issue 31): the README gives what CKC is and its two commands in its first 40 lines,
 * in lines of at most 120 characters (sample output in code blocks aside); perf/README.md gives current figures in at
 * most 300 lines; {@code perf/results/} keeps only the folders that a page or a comment in the code cites (the
 * measurement behind a choice), at most 10 MB; every such citation, and every link into perf/README.md, resolves. A
 * results folder that nothing cites any more leaves the tree (git history keeps it).
 */
class HouseRulesTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path PERF_README = ROOT.resolve("perf/README.md");
    private static final Path RESULTS = ROOT.resolve("perf/results");
    private static final long MAX_RESULTS_BYTES = 10L * 1024 * 1024;
    private static final long BLOCK = 4096;
    private static final int MAX_PERF_README_LINES = 300;
    private static final Pattern RESULTS_LINK = Pattern.compile("results/(20\\d\\d-[0-9]{2}-[0-9]{2}-[0-9]{4}-[\\w-]+)(/[^)\\s#]*)?");
    private static final Set<String> CITING_FILES = Set.of(".md", ".java", ".yaml", ".yml", ".properties", ".sh");
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of(".git", "target", "node_modules", ".ckc");
    private static final Pattern PERF_README_ANCHOR = Pattern.compile("perf/README\\.md#([\\w-]+)|\\]\\(#([\\w-]+)\\)");

    @Test
    void theReadmeGivesBothCommandsFirstInLinesOfAtMost120Characters() throws IOException {
        List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
        assertThat(String.join("\n", readme.subList(0, Math.min(40, readme.size()))))
                .as("the README's first 40 lines").contains("./ckc demo").contains("bash .ci/run");
        List<String> tooLong = new ArrayList<>();
        boolean inCode = false;
        for (int i = 0; i < readme.size(); i++) {
            String line = readme.get(i);
            if (line.startsWith("```")) {
                inCode = !inCode;
            } else if (!inCode && line.codePointCount(0, line.length()) > 120) {
                tooLong.add("README.md:" + (i + 1));
            }
        }
        assertThat(tooLong).as("README lines over 120 characters").isEmpty();
    }

    @Test
    void perfReadmeKeepsToThreeHundredLines() throws IOException {
        assertThat(Files.readAllLines(PERF_README)).as("lines of perf/README.md").hasSizeLessThanOrEqualTo(MAX_PERF_README_LINES);
    }

    @Test
    void everyResultsFolderInTheTreeIsCitedByAPage() throws IOException {
        Set<String> cited = citedFolders();
        Set<String> orphans = new TreeSet<>(trackedFolders());
        orphans.removeAll(cited);

        assertThat(orphans).as("folders under perf/results that no page or code cites: cite each or delete it (git "
                + "history keeps it)").isEmpty();
    }

    @Test
    void resultsTakeAtMostTenMegabytes() throws IOException {
        // As `du -sh perf/results` counts on a fresh clone (issue 31's measure): whole 4 KiB blocks per file and folder.
        Set<Path> folders = new TreeSet<>();
        long bytes = 0;
        for (Path file : trackedFiles()) {
            bytes += blocks(Files.size(file));
            for (Path folder = file.getParent(); folder.startsWith(RESULTS); folder = folder.getParent()) {
                folders.add(folder);
            }
        }
        bytes += folders.size() * BLOCK;
        assertThat(bytes).as("bytes under perf/results, in whole blocks").isLessThanOrEqualTo(MAX_RESULTS_BYTES);
    }

    private static long blocks(long size) {
        return (size + BLOCK - 1) / BLOCK * BLOCK;
    }

    @Test
    void everyCitationOfAResultsFolderResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : citingFiles()) {
            Matcher link = RESULTS_LINK.matcher(Files.readString(page));
            while (link.find()) {
                Path target = RESULTS.resolve(link.group(1) + (link.group(2) == null ? "" : link.group(2)));
                if (!Files.exists(target)) {
                    broken.add(ROOT.relativize(page) + ": " + link.group());
                }
            }
        }
        assertThat(broken).as("citations of results that are not there").isEmpty();
    }

    @Test
    void everyLinkToASectionOfPerfReadmeResolves() throws IOException {
        Set<String> anchors = new TreeSet<>();
        for (String line : Files.readAllLines(PERF_README)) {
            if (line.startsWith("#")) {
                anchors.add(anchor(line.replaceFirst("^#+\\s*", "")));
            }
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            Matcher link = PERF_README_ANCHOR.matcher(Files.readString(page));
            while (link.find()) {
                String name = link.group(1) != null ? link.group(1) : link.group(2);
                boolean intoPerfReadme = link.group(1) != null || page.equals(PERF_README);
                if (intoPerfReadme && !anchors.contains(name)) {
                    broken.add(ROOT.relativize(page) + ": #" + name);
                }
            }
        }
        assertThat(broken).as("links to sections of perf/README.md that it does not have").isEmpty();
    }

    @Test
    void anAnchorIsTheHeadingAsGithubWritesIt() {
        assertThat(anchor("Scenario 1, the paper's Figure 4")).isEqualTo("scenario-1-the-papers-figure-4");
        assertThat(anchor("MTD, the paper's Figures 16 and 17")).isEqualTo("mtd-the-papers-figures-16-and-17");
    }

    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
    static String anchor(String heading) {
        return heading.trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** perf/README.md, the README and every page under docs/. */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(PERF_README, ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** Every page and source file of the project but perf/results itself, build output and the stack's own state. */
    private static List<Path> citingFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                return dir.equals(RESULTS) || SKIPPED_DIRECTORIES.contains(name)
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String name = file.getFileName().toString();
                if (name.equals("ckc") || CITING_FILES.stream().anyMatch(name::endsWith)) {
                    files.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        files.sort(null);
        return files;
    }

    private static Set<String> citedFolders() throws IOException {
        Set<String> cited = new TreeSet<>();
        for (Path page : citingFiles()) {
            Matcher link = RESULTS_LINK.matcher(Files.readString(page));
            while (link.find()) {
                cited.add(link.group(1));
            }
        }
        return cited;
    }

    private static Set<String> trackedFolders() throws IOException {
        Set<String> folders = new TreeSet<>();
        for (Path file : trackedFiles()) {
            folders.add(RESULTS.relativize(file).getName(0).toString());
        }
        return folders;
    }

    /**
     * The files under perf/results that git tracks (a run's new folder, and the raw logs and profiles that
     * .gitignore keeps local, are not the tree's until committed); every file there where the tree has no git.
     */
    private static List<Path> trackedFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        try {
            Process git = new ProcessBuilder("git", "ls-files", "-z", "--", "perf/results").directory(ROOT.toFile())
                    .redirectErrorStream(false).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (git.waitFor() == 0) {
                for (String name : out.split("\0")) {
                    if (!name.isEmpty() && Files.isRegularFile(ROOT.resolve(name))) {
                        files.add(ROOT.resolve(name));
                    }
                }
                return files;
            }
        } catch (IOException e) {
            // no git here: the files on disk are the tree
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        try (Stream<Path> all = Files.walk(RESULTS)) {
            all.filter(Files::isRegularFile).forEach(files::add);
        }
        return files;
    }
}
