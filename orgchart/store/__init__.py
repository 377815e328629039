"""The only code of the org chart that talks to Redis: the graph (core, employees, chain, names,
tree, ancestors, locations, importing), the integrity reads (checks, sensorchecks), the sensors and their charts."""

from config.activity import Actor
from config.store import Busy, EditConflict, NotFound, Refused, StoreError
from orgchart.documents import Employee, Location
from orgchart.store.ancestors import (
    CHAIN_PAGE,
    CHAIN_SHOWN,
    PATH_SHOWN,
    Chain,
    Path,
    chain_of_command,
    find_path,
)
from orgchart.store.chain import delete_employee, move_employee
from orgchart.store.core import MAX_DEPTH, NODE_LIMIT, load_scripts
from orgchart.store.employees import (
    SORT_LIMIT,
    TooManyToSort,
    employee_form_data,
    employee_page,
    get_employee,
    resolve_employee,
    resolve_employees,
    save_employee,
)
from orgchart.store.importing import (
    Imported,
    import_graph,
    location_names,
    record_import,
    write_locations,
    write_people,
)
from orgchart.store.locations import (
    UNLINK_CHUNK,
    delete_location,
    forget_sensor,
    get_location,
    location_choices,
    location_overview,
    location_page,
    save_location,
)
from orgchart.store.names import (
    NAMES,
    SEARCH_LIMIT,
    name_gram_drift,
    rebuild_name_grams,
    search_employee_ids,
    suggest_employees,
)
from orgchart.store.sensorcharts import Rollup, SensorCharts, monthly_rollups, sensor_charts
from orgchart.store.sensorchecks import (
    buckets_without_ttl,
    clear_tombstone,
    expire_buckets,
    raw_buckets,
    rewrite_rollups,
    rollups_of,
    sensor_index,
    sensor_owners,
)
from orgchart.store.sensors import (
    decode_bucket,
    hour_samples,
    hundredths,
    record_hundredths,
    record_readings,
    record_samples,
    retention,
    sensor_span,
    used_memory,
)
from orgchart.store.tree import (
    employee_detail,
    reports_by_depth,
    staff_reporting_to,
    subtree,
    tree_children,
    tree_root,
)

__all__ = [
    "MAX_DEPTH", "NODE_LIMIT", "Actor", "Busy", "EditConflict", "Employee", "Location", "NotFound", "Refused",
    "StoreError", "load_scripts",
    "SORT_LIMIT", "TooManyToSort",
    "delete_employee", "employee_form_data", "employee_page", "get_employee", "move_employee",
    "resolve_employee", "resolve_employees", "save_employee",
    "Imported", "import_graph", "location_names", "record_import", "write_locations", "write_people",
    "UNLINK_CHUNK", "delete_location", "forget_sensor", "get_location", "location_choices",
    "location_overview", "location_page", "save_location",
    "NAMES", "SEARCH_LIMIT", "name_gram_drift", "rebuild_name_grams", "search_employee_ids",
    "suggest_employees",
    "Rollup", "SensorCharts", "monthly_rollups", "sensor_charts",
    "buckets_without_ttl", "clear_tombstone", "expire_buckets", "raw_buckets",
    "rewrite_rollups", "rollups_of", "sensor_index", "sensor_owners",
    "decode_bucket", "hour_samples", "hundredths", "record_hundredths", "record_readings",
    "record_samples", "retention", "sensor_span", "used_memory",
    "CHAIN_PAGE", "CHAIN_SHOWN", "PATH_SHOWN",
    "Chain", "Path", "chain_of_command", "employee_detail", "find_path", "reports_by_depth",
    "staff_reporting_to", "subtree", "tree_children", "tree_root",
]  # fmt: skip
