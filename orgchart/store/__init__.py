"""The only code of the org chart that talks to Redis: the graph (core, employees, names,
tree, locations, importing), the integrity reads (checks, sensorchecks), the sensors and their charts."""

from orgchart.store.core import *  # noqa: F403
from orgchart.store.employees import *  # noqa: F403
from orgchart.store.importing import *  # noqa: F403
from orgchart.store.locations import *  # noqa: F403
from orgchart.store.names import *  # noqa: F403
from orgchart.store.sensorcharts import *  # noqa: F403
from orgchart.store.sensorchecks import *  # noqa: F403
from orgchart.store.sensors import *  # noqa: F403
from orgchart.store.tree import *  # noqa: F403
