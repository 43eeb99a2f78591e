package io.ckc.jobs.groups;

import io.ckc.udfs.GroupSelection;
import io.ckc.udfs.groups.AttributeMatchSelection;
import io.ckc.udfs.groups.BatteryBandSelection;
import io.ckc.udfs.groups.GridCellSelection;

/**
 * The group selection a {@code group-definer} runs: a shipped example by name ({@code grid-cell},
 * {@code battery-band}, {@code attribute}) or a user's {@link GroupSelection} class by its fully
 * qualified name, from a jar on the job's classpath. The optional argument goes to a constructor
 * taking one String; without one, the public no-argument constructor is used.
 */
public final class Selections {

    private Selections() {
    }

    public static GroupSelection create(String name, String argument) {
        String className = switch (name) {
            case "grid-cell" -> GridCellSelection.class.getName();
            case "battery-band" -> BatteryBandSelection.class.getName();
            case "attribute" -> AttributeMatchSelection.class.getName();
            default -> name;
        };
        try {
            Class<? extends GroupSelection> type = Class.forName(className).asSubclass(GroupSelection.class);
            return argument == null ? type.getDeclaredConstructor().newInstance()
                    : type.getDeclaredConstructor(String.class).newInstance(argument);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("--selection '" + name + "' is neither grid-cell, battery-band, attribute "
                    + "nor a GroupSelection class with a public " + (argument == null ? "no-argument" : "String")
                    + " constructor", e);
        }
    }
}
