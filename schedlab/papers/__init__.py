"""The results of single papers: their published tables and the measures that only their scenarios use.

The top floor of the package: scenarios (and the replay command's comparison with
RLScheduler's table) import these modules; nothing below ``experiment`` does. General
concepts a paper introduced live where the concept is (fair share and runtime estimates in
``model/analysis/``, the site supervisor's state in ``model/contracts/site.py``, RLScheduler's
window draw in ``model/formats/window_draw.py``). Each module's docstring names its paper.
"""
