package io.ckc.udfs.groups;

import io.ckc.udfs.GroupSelection;

import java.util.Map;
import java.util.Set;

/**
 * Worked example, a geofence grid: the node is in group {@code cell:<row>:<column>} of a grid of
 * square cells {@code cellDegrees} wide (latitude and longitude), or in no group without a position.
 * Its argument is the cell size in degrees (default 0.01, about 1 km).
 */
public final class GridCellSelection implements GroupSelection {

    private final double cellDegrees;

    public GridCellSelection() {
        this("0.01");
    }

    public GridCellSelection(String cellDegrees) {
        this.cellDegrees = Double.parseDouble(cellDegrees);
        if (!(this.cellDegrees > 0)) {
            throw new IllegalArgumentException("the cell size must be positive degrees, not " + cellDegrees);
        }
    }

    @Override
    public String definerId() {
        return "grid-cell";
    }

    @Override
    public Set<String> groupsOf(String mnId, Double latitude, Double longitude, Double battery,
                                Map<String, String> attributes) {
        if (latitude == null || longitude == null) {
            return Set.of();
        }
        long row = (long) Math.floor(latitude / cellDegrees);
        long column = (long) Math.floor(longitude / cellDegrees);
        return Set.of("cell:" + row + ":" + column);
    }
}
