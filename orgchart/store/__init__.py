"""The only code of the org chart that talks to Redis: the graph, and the sensors."""

from orgchart.store.graph import *  # noqa: F403
from orgchart.store.sensors import *  # noqa: F403
