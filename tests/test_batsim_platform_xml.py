"""Batsim's XML platforms as `--platform` files: hosts, speeds, pstates, power and sleep states, the master left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedlab.model.core.platform import Pstate, Switch
from schedlab.model.formats.platform_file import PlatformError, load_platform

DATA = Path(__file__).resolve().parent / "data"


def test_a_cluster_energy_platform_reads_as_batsim_reads_it():
    """tests/data/batsim_energy_8.xml is shaped like Batsim's cluster_energy_128.xml: 8 compute
    hosts of 3 compute pstates and 3 sleep pstates, and a master cluster."""
    platform = load_platform(DATA / "batsim_energy_8.xml")
    assert [n.name for n in platform.nodes] == [f"host{k}" for k in range(8)]  # the master is not a compute host
    assert platform.cores == 8  # a Batsim job's res counts hosts: one core each
    (kind,) = platform.node_types
    assert kind.flops == platform.flops == 200e6  # pstate 0: 200 Mf
    power = kind.power
    assert power is not None
    # speeds relative to pstate 0 (200, 150, 100 Mf); watts idle:full
    assert power.pstates == (Pstate(1.0, 90.0, 180.0), Pstate(0.75, 90.0, 150.0), Pstate(0.5, 90.0, 120.0))
    assert power.off == 10.0
    # shutdown: one flop at 0.2 f = 5 s, at 100 W = 500 J; boot: one flop at 0.01 f = 100 s at 120 W
    assert power.switch_off == Switch(pytest.approx(5.0), pytest.approx(500.0))
    assert power.switch_on == Switch(pytest.approx(100.0), pytest.approx(12000.0))


def test_lone_hosts_in_batsim_order_and_the_default_master_host_left_out():
    platform = load_platform(DATA / "batsim_2hosts.xml")
    # host1 comes first in the file; Batsim numbers machines by name (numbers as numbers)
    assert [n.name for n in platform.nodes] == ["host0", "host1"]
    power = platform.node_types[0].power
    assert power is not None and power.off is None  # no sleep_pstates: never switched off
    assert power.levels == (Pstate(1.0, 100.0, 200.0), Pstate(0.5, 100.0, 150.0))


def test_numbers_in_host_names_sort_as_numbers(tmp_path):
    xml = tmp_path / "p.xml"
    hosts = "".join(f'<host id="n{k}" speed="1Gf"/>' for k in (10, 2, 1))
    xml.write_text(
        f'<?xml version="1.0"?><platform version="4.1"><zone id="z" routing="Full">{hosts}</zone></platform>'
    )
    platform = load_platform(xml)
    assert [n.name for n in platform.nodes] == ["n1", "n2", "n10"]
    assert platform.node_types[0].power is None  # no watts: no energy model


def test_the_replay_cli_takes_a_batsim_platform(tmp_path, capsys):
    from schedlab.experiment.cli import main

    swf = tmp_path / "w.swf"
    swf.write_text(
        "; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 1 0 5 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    args = ["replay", str(swf), "--platform", str(DATA / "batsim_energy_8.xml"), "--start", "0", "--length", "2"]
    code = main([*args, "--backfill", "none", "--executor", "serial", "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "platform batsim_energy_8: 8 nodes" in printed


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        ("<platform><zone", r"p\.xml: not a readable XML platform"),
        ('<platform><host id="h0" speed="fast"/></platform>', r"p\.xml: host 'h0': speed: a speed must read like"),
        (
            '<platform><cluster id="c" prefix="h" radical="0-x" speed="1Gf"/></platform>',
            r"p\.xml: cluster 'c': radical must read like 0-127",
        ),
        (
            '<platform><host id="h0" speed="1Gf" pstate="3"><prop id="watt_per_state" value="1:2"/></host></platform>',
            r"p\.xml: host 'h0': attribute pstate names no compute pstate \(there are 1\), got '3'",
        ),
        ('<platform><host id="master_host" speed="1Gf"/></platform>', r"p\.xml: no compute host"),
    ],
)
def test_a_bad_batsim_platform_gets_one_line(tmp_path, xml, message):
    path = tmp_path / "p.xml"
    path.write_text(xml)
    with pytest.raises(PlatformError, match=message) as error:
        load_platform(path)
    assert "\n" not in str(error.value)


def test_an_xml_platform_is_known_by_its_content_too(tmp_path):
    path = tmp_path / "platform.cfg"  # no .xml suffix: the first character says XML
    path.write_text((DATA / "batsim_2hosts.xml").read_text())
    assert [n.name for n in load_platform(path).nodes] == ["host0", "host1"]


def test_the_replay_cli_names_a_bad_batsim_platform_in_one_line(tmp_path, capsys):
    from schedlab.experiment.cli import main

    bad = tmp_path / "bad.xml"
    bad.write_text('<platform><cluster id="c" prefix="h" radical="0-1" speed="1Gf">')
    workload = tmp_path / "w.json"
    workload.write_text('{"nb_res": 2, "jobs": [], "profiles": {}}')
    code = main(["replay", str(workload), "--platform", str(bad), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.splitlines()) <= 2  # the error, and where the traceback is
    assert "bad.xml: not a readable XML platform: no element found" in err.splitlines()[0]  # the parser names the place


def test_a_blank_line_before_the_xml_declaration_is_read_as_simgrid_reads_it(tmp_path):
    # Batsim's own platforms/cluster_energy_128.xml starts with a blank line; a strict XML parser refuses it
    path = tmp_path / "blank_first.xml"
    path.write_text("\n" + (DATA / "batsim_2hosts.xml").read_text().lstrip())
    assert len(load_platform(path).nodes) == len(load_platform(DATA / "batsim_2hosts.xml").nodes)
