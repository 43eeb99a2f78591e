package io.ckc.perf;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/** Prints Figures 16 and 17 for all configurations of an MTD run from its CSV (the runs come in two stacks). */
@Command(name = "mtd-table", mixinStandardHelpOptions = true, description = "Figure 16 and 17 tables from an mtd CSV.")
final class MtdTableCommand implements Callable<Integer> {

    @Parameters(index = "0", description = "The CSV written by mtd --csv")
    Path csv;

    @Override
    public Integer call() throws Exception {
        List<MtdReport.Row> rows = MtdReport.readCsv(csv).stream().sorted(Comparator.comparing(MtdReport.Row::config))
                .toList();
        MtdReport.printFigure16(System.out, rows);
        MtdReport.printFigure17(System.out, rows);
        System.out.println();
        rows.forEach(r -> System.out.println(r.resultLine()));
        return 0;
    }
}
