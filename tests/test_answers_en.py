"""Decision-table values read from English questions (and units written the English way in
Chinese ones): each value is read as the number it means, or left missing or refused with
the reason — never read as another number."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import find_inputs, names_of

SEAL = build_table(
    ["Seal temperature (°F)", "Leak rate (drops/min)", "Running hours", "Action"],
    [["<150", "<5", "<8000", "none"], ["<150", "<5", ">=8000", "plan"], ["<150", ">=5", "*", "week"],
     ["150-180", "*", "*", "48h"], [">180", "*", "*", "stop"]],
    decision="inputs=Seal temperature (°F),Leak rate (drops/min),Running hours; outputs=Action")
PUMP = build_table(
    ["Discharge pressure (psi)", "Motor speed (rpm)", "Diagnosis"],
    [["<40", ">=1700", "impeller"], ["<40", "<1700", "slow"], ["40-90", "*", "normal"],
     [">90", "*", "blocked"]],
    decision="inputs=Discharge pressure (psi),Motor speed (rpm); outputs=Diagnosis")
VIB = build_table(["振动速度(mm/s)", "轴承温度(℃)", "处理"],
                  [["<4.5", "<70", "正常"], ["<4.5", ">=70", "查油位"], [">=4.5", "*", "停机"]],
                  decision="inputs=振动速度(mm/s),轴承温度(℃); outputs=处理")
T, L, H = SEAL.header[:3] if SEAL else ("", "", "")


@pytest.mark.parametrize(("question", "expected"), [
    # a value right after its name, with spaces between (was never read: 'rate2' was taken
    # for an identifier like E17)
    ("seal temperature 160 °F, leak rate 2 drops/min, running hours 9000",
     {T: "160", L: "2", H: "9000"}),
    ("Seal temperature 140F leak rate 2 running hours 9000", {T: "140", L: "2", H: "9000"}),
    ("seal temperature is 140 degrees F, leak rate of about 3, running hours are 8,000",
     {T: "140", L: "3", H: "8000"}),
    ("the temperature is 190", {T: "190"}),  # a trailing word of the header names it
    ("running hours are 8,000, seal at 140 F, leak rate 0", {T: "140", L: "0", H: "8000"}),
    ("temperature is minus 5 F, leak rate 0, running hours 10", {T: "-5", L: "0", H: "10"}),
    # the other scale: converted to the column's (session 45), never read as the bare number
    ("seal temperature 65 °C, leak rate 1, running hours 100", {T: "149", L: "1", H: "100"}),
    ("seal temperature 24 degrees Celsius, leak rate 1, running hours 100",
     {T: "75.2", L: "1", H: "100"}),
    ("seal temperature 75 F, leak rate 1, running hours 1.2k", {T: "75", L: "1", H: "1.2k"}),
    ("seal temperature 140 F, leak rate 1, 2 thousand hours", {T: "140", L: "1", H: "2thousand"}),
    # a bound or a span, as written (the table reads it: `test_answers_ranges`)
    ("seal temperature not above 140, leak rate 1, running hours 100",
     {T: "not above 140", L: "1", H: "100"}),
    ("seal temperature between 150 and 170, leak rate 1, running hours 100",
     {T: "between 150 and 170", L: "1", H: "100"}),
    ("seal temperature 140 or more, leak rate 1,5 drops", {T: "140 or more"}),
    # no exact value: a number word, a decimal comma, another quantity
    ("seal temperature 1 200, leak rate 1, running hours 100", {L: "1", H: "100"}),
    # number words with no unit after them (with one they are read: session 30)
    ("seal temperature seventy-five, leak rate 1, running hours 100", {L: "1", H: "100"}),
    ("seal temperature seventy-five degrees, leak rate 1, running hours 100",
     {T: "75", L: "1", H: "100"}),
    ("seal temperature 140, leak rate 2, running hours up to 9000",
     {T: "140", L: "2", H: "up to 9000"}),
    ("bearing temperature 190 F, leak rate 1, running hours 100", {L: "1", H: "100"}),
    # … after a comma too (the word before was read as '1,bearing', no word: 190 was the seal's)
    ("leak rate 1, bearing temperature 190 F, running hours 100", {L: "1", H: "100"}),
    # two values for one input: neither is taken
    ("seal temperature 140 F, leak rate 2, sorry, the temperature is 160 F", {L: "2"}),
    ("flow rate 20 gpm, seal temperature 140, running hours 100", {T: "140", H: "100"}),
])
def test_english_values_are_read_as_the_numbers_they_mean(question, expected):
    assert SEAL is not None
    assert find_inputs(question, SEAL) == expected


@pytest.mark.parametrize(("question", "expected", "status"), [
    ("discharge pressure 2 psi motor speed 1,200 rpm", {"2", "1200"}, "match"),  # not 1 rpm
    ("discharge pressure: 35 psi, motor speed: 1,750 RPM", {"35", "1750"}, "match"),
    ("discharge pressure 35 psi at 1800 rpm", {"35", "1800"}, "match"),  # by its unit
    ("the pump discharge reads 95 psi", {"95"}, "match"),
    # 35 bar is 507.6 psi (session 43: the tables convert bar to psi; it was refused)
    ("discharge pressure 35 bar, motor speed 1800 rpm", {"35bar", "1800"}, "match"),
    ("discharge pressure 35 psi at 1.2k rpm", {"35", "1.2k"}, "match"),  # 1200 rpm
])
def test_english_units_and_thousands(question, expected, status):
    assert PUMP is not None
    found = find_inputs(question, PUMP)
    assert set(found.values()) == expected
    ev = evaluate_inputs("d.md", 1, PUMP, found)
    assert ev.status == status, ev.message


def test_a_fahrenheit_letter_in_a_chinese_question_is_converted_not_read_as_celsius():
    """'轴承温度 160F' was read as 160 ℃; it was then refused, and is converted since session
    45 (71.111111 ℃)."""
    assert VIB is not None
    found = find_inputs("振动速度 3 mm/s，轴承温度 160F", VIB)
    assert found == {"振动速度(mm/s)": "3", "轴承温度(℃)": "71.111111"}


def test_english_header_parts_name_only_their_own_column():
    assert "temperature" in names_of("Seal temperature (°F)")
    assert "seal temperature" in names_of("Seal temperature (°F)")
    two = build_table(["Inlet temperature (°F)", "Outlet temperature (°F)", "Action"],
                      [["<100", "<100", "ok"], [">=100", "*", "cool"], ["<100", ">=100", "check"]],
                      decision="inputs=Inlet temperature (°F),Outlet temperature (°F); "
                               "outputs=Action")
    assert two is not None
    # 'temperature' names both: it names neither
    assert find_inputs("temperature 120", two) == {}
    assert find_inputs("inlet temperature 120, outlet temperature 90", two) == {
        "Inlet temperature (°F)": "120", "Outlet temperature (°F)": "90"}


def test_an_english_text_value_is_named_by_a_word_of_its_own():
    """'is the noise normal?' gave Vibration = No (the no of noise and normal)."""
    table = build_table(["Vibration", "Bearing temperature (°F)", "Action"],
                        [["Yes", "*", "stop"], ["No", ">180", "replace"], ["No", "<=180", "ok"]],
                        decision="inputs=Vibration,Bearing temperature (°F); outputs=Action")
    assert table is not None
    assert find_inputs("bearing temperature 150 F, is the noise normal?", table) == {
        "Bearing temperature (°F)": "150"}
    assert find_inputs("bearing temperature 150 F, no vibration", table)["Vibration"] == "no"
    where = build_table(["Ambient", "Action"], [["Outdoor", "ice"], ["Indoor", "jam"]],
                        decision="inputs=Ambient; outputs=Action")
    assert where is not None
    assert find_inputs("the pump is outdoors", where) == {"Ambient": "outdoor"}


BOILER = build_table(
    ["Conductivity (µS/cm)", "Drum pressure (psi)", "Action"],
    [["below 2,500", "any", "none"], ["2,500 to 3,500", "at most 150", "surface"],
     ["2,500 to 3,500", "above 150", "notify"], ["above 3,500", "any", "bottom"]],
    decision="inputs=Conductivity (µS/cm),Drum pressure (psi); outputs=Action",
    heading_path=("Boiler water",))  # its heading names the boiler: ``boiler conductivity``


@pytest.mark.parametrize(("question", "expected"), [
    ("boiler conductivity 3,000 µS/cm at 180 psi", {"3000", "180"}),
    ("conductivity 3000 uS/cm at 180 psi", {"3000", "180"}),
    ("conductivity 3000 µS/cm, 180 psi", {"3000", "180"}),
])
def test_a_rate_unit_of_the_number_before_names_no_column(question, expected):
    """The cm of 'µS/cm' (the s of 'in/s') was taken for the word naming the next number,
    so '180 psi' was not given to the one column in psi: the table asked for it."""
    assert BOILER is not None
    found = find_inputs(question, BOILER)
    assert set(found.values()) == expected
    ev = evaluate_inputs("d.md", 1, BOILER, found)
    assert ev.status == "match" and ev.outputs == {"Action": "notify"}, ev.message


MEGGER = build_table(
    ["Motor rated voltage (V)", "Test voltage (V DC)"],
    [["under 1,000", "500"], ["1,000 to 2,500", "1,000"], ["more than 2,500", "2,500"]],
    decision="inputs=Motor rated voltage (V); outputs=Test voltage (V DC)")
TOWER = build_table(
    ["Cycles of concentration", "Basin temperature (°F)", "Bleed-off"],
    [["less than 3", "any", "closed"], ["3 to 5", "below 85", "5 gpm"],
     ["3 to 5", "85 or more", "8 gpm"], ["more than 5", "any", "12 gpm"]],
    decision="inputs=Cycles of concentration,Basin temperature (°F); outputs=Bleed-off")


@pytest.mark.parametrize(("table", "question", "expected"), [
    (MEGGER, "megger test voltage for a 4160 V motor", {"Motor rated voltage (V)": "4160"}),
    (MEGGER, "insulation test on a 480V motor", {"Motor rated voltage (V)": "480"}),
    (TOWER, "cooling tower running 6 cycles, basin at 90 °F",
     {"Cycles of concentration": "6", "Basin temperature (°F)": "90"}),
    (TOWER, "6 cycles or more", {}),  # a bound, not a value
    (TOWER, "4 cycle", {}),  # no name: the header says cycles
])
def test_a_value_written_before_its_english_name_is_read(table, question, expected):
    """'a 4160 V motor' and '6 cycles' gave nothing (only a name before its value was read),
    and the row most alike was shown instead: 500 V DC for a 4160 V motor, 5 gpm at 6 cycles."""
    assert table is not None
    assert find_inputs(question, table) == expected


def _one_input(header: str, rows: list[list[str]]):
    table = build_table([header, "Action"], rows, decision=f"inputs={header}; outputs=Action")
    assert table is not None
    return table


@pytest.mark.parametrize(("header", "question", "value"), [
    ("Vibration (in/s)", "vibration is 0.5 in/s", "0.5"),
    ("Flow (gpm)", "flow 30 gpm", "30"),
    ("Voltage (V)", "voltage 480 volts", "480"),
    ("Signal (mV)", "signal 20 mV", "20"),
    ("Motor current (A)", "motor current 20 amps", "20"),
    ("Pressure (psi)", "pressure 20 psig", "20"),
    ("Motor (hp)", "a 20 hp motor", "20"),
    ("Airflow (cfm)", "airflow is 200 CFM", "200"),
    ("Incident energy (cal/cm²)", "incident energy 30 cal/cm2", "30"),
    ("Incident energy (cal/cm²)", "30 cal/cm² at the panel", "30"),  # by its unit alone
])
def test_units_of_english_field_work_are_known(header, question, value):
    """in/s, gpm, V, mV, A, psig, hp, cfm and cal/cm² were no units: a value named only by
    its unit was not read, and one named by its column kept its unit unjudged."""
    table = _one_input(header, [["<10", "low"], [">=10", "high"]])
    assert find_inputs(question, table) == {header: value}
    assert evaluate_inputs("d.md", 1, table, {header: value}).status == "match"


@pytest.mark.parametrize(("header", "question", "shown"), [
    ("Pressure (psi)", "pressure 20 psia", "20psia"),  # absolute is no gauge pressure
    ("Basin temperature (°F)", "basin 30 kPa", "30kPa"),  # (30 °C is converted: 86 °F)
])
def test_a_value_in_another_unit_is_refused_and_shown_as_typed(header, question, shown):
    """The refusal names the value as the user typed it (30°C, not 30°c)."""
    table = _one_input(header, [["<10", "low"], [">=10", "high"]])
    found = find_inputs(question, table)
    assert found == {header: shown}
    ev = evaluate_inputs("d.md", 1, table, found)
    assert ev.status == "no_match"
    assert f"='{shown}'" in ev.message


@pytest.mark.parametrize(("header", "question", "shown", "output"), [
    ("Voltage (V)", "voltage 13.8 kV", "13.8kV", "high"),  # was read as 13.8 V, then refused
    ("Voltage (kV)", "voltage 480 V", "480V", "low"),  # 0.48 kV
    ("Signal (mV)", "signal 2 V", "2V", "high"),
])
def test_a_value_in_another_unit_of_the_family_is_converted(header, question, shown, output):
    table = _one_input(header, [["<10", "low"], [">=10", "high"]])
    found = find_inputs(question, table)
    assert found == {header: shown}
    ev = evaluate_inputs("d.md", 1, table, found)
    assert ev.status == "match" and ev.outputs == {"Action": output}, ev.message
    assert ev.cells[0]["reason"].startswith(f"{shown} = ")


OIL = build_table(
    ["Ambient temperature (°F)", "Load (%)", "Oil change interval"],
    [["less than 50", "N/A", "4,000 hours"], ["between 50 and 90", "at most 80", "3,000 hours"],
     ["between 50 and 90", "over 80", "2,000 hours"], ["above 90", "N/A", "1,500 hours"]],
    decision="inputs=Ambient temperature (°F),Load (%); outputs=Oil change interval")
A, LOAD = OIL.header[:2] if OIL else ("", "")


@pytest.mark.parametrize(("question", "expected"), [
    # two values in units known to differ joined by "and"/"to" are two values, not a span
    # (both were left missing: "70 °F and 85" read as "between 70 and 85"); the output's
    # name before 70 °F names no other quantity (`test_an_output_name_names_no_input`)
    ("oil change interval at 70 °F and 85% load", {A: "70", LOAD: "85"}),
    ("oil interval, 85% load and 70 °F ambient temperature", {LOAD: "85", A: "70"}),
    # a span stays a span: neither end is the value; the table reads it whole (16 to 18°C
    # was no range to the reader while its unit had a degree sign)
    ("ambient temperature between 70 and 85 °F", {A: "between 70 and 85°F"}),
    ("ambient temperature 70°F to 85°F, load 85%", {A: "70°F to 85°F", LOAD: "85"}),
])
def test_two_values_in_different_units_are_no_span(question, expected):
    assert OIL is not None
    assert find_inputs(question, OIL) == expected


@pytest.mark.parametrize(("question", "expected"), [
    # a number taken by its unit after a pronoun ("when it is", "if it's") or a contraction
    # of "is" ("the load's 85%"): the pronoun names no other quantity (70 °F was left missing)
    ("oil change interval when it is 70°F and load is 85%", {A: "70", LOAD: "85"}),
    ("oil change interval when it's 70°F and load is 85%", {A: "70", LOAD: "85"}),
    ("if it’s 70°F and the load’s 85%", {A: "70", LOAD: "85"}),
    # a word that names another quantity still does
    ("bearing temperature 70°F, load 85%", {LOAD: "85"}),
])
def test_a_pronoun_before_a_value_names_no_other_quantity(question, expected):
    assert OIL is not None
    assert find_inputs(question, OIL) == expected


@pytest.mark.parametrize(("question", "expected"), [
    # the words before 70 °F are the table's output ("Oil change interval"): they name no
    # other quantity, so 70 °F is taken by its unit (it was left missing)
    ("oil change interval at 70 °F and 85% load", {A: "70", LOAD: "85"}),
    ("change interval 70°F, load 85%", {A: "70", LOAD: "85"}),
    ("bearing temperature 70°F, load 85%", {LOAD: "85"}),  # another quantity still does
])
def test_an_output_name_names_no_input(question, expected):
    assert OIL is not None
    assert find_inputs(question, OIL) == expected


HOSE = build_table(
    ["Age (years)", "Abrasion depth (mm)", "Action"],
    [["less than 4", "less than 0.5", "Keep in service"], ["4 to 8", "at least 0.5", "Replace"],
     ["more than 8", "*", "Replace"]],
    decision="inputs=Age (years),Abrasion depth (mm); outputs=Action")
AGE, DEPTH = HOSE.header[:2] if HOSE else ("", "")
YEARS = build_table(["使用年限(年)", "磨损深度(mm)", "处理"],
                    [["<4", "<0.5", "继续使用"], [">=4", "*", "更换"]],
                    decision="inputs=使用年限(年),磨损深度(mm); outputs=处理")


@pytest.mark.parametrize(("question", "expected"), [
    # a duration is a unit of its own (years, months, weeks, days, hours): 5 years was no
    # value in a unit, so the Age (years) input stayed missing
    ("hose is 5 years old with 0.3 mm abrasion", {AGE: "5", DEPTH: "0.3"}),
    ("the hose is 6 yrs old, 0.2 mm abrasion", {AGE: "6", DEPTH: "0.2"}),
    ("5 years old hose, 0.3 mm abrasion", {AGE: "5", DEPTH: "0.3"}),
    # another duration is converted when an exact factor does (18 months is 1.5 years, as
    # 'age 18 months' is), else not the column's (weeks to years: the input stays missing);
    # a bound is given as written
    ("hose is 260 weeks old with 0.3 mm abrasion", {DEPTH: "0.3"}),
    ("hose is 18 months old, 0.3 mm abrasion", {AGE: "18months", DEPTH: "0.3"}),
    ("hose is over 5 years old, 0.3 mm abrasion", {AGE: "over 5 years", DEPTH: "0.3"}),
])
def test_a_duration_in_years_is_an_age(question, expected):
    assert HOSE is not None
    assert find_inputs(question, HOSE) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("用了5年，磨损深度0.3mm", {"使用年限(年)": "5", "磨损深度(mm)": "0.3"}),
    ("用了18个月，磨损深度0.3mm", {"使用年限(年)": "18个月", "磨损深度(mm)": "0.3"}),  # 1.5 年
    ("用了3周，磨损深度0.3mm", {"磨损深度(mm)": "0.3"}),  # no exact factor to years
    ("3月2日检查，磨损深度0.3mm", {"磨损深度(mm)": "0.3"}),
])
def test_a_chinese_duration_is_taken_by_its_unit(question, expected):
    assert YEARS is not None
    assert find_inputs(question, YEARS) == expected


def test_the_unit_of_the_number_before_is_no_name_of_the_next():
    """The c of '22℃ 4 days' (℃ is °c compacted) was read as the word naming the 4, so the
    days column, the one in days, was left missing."""
    table = build_table(["温度(℃)", "天数", "措施"],
                        [["20–25", "3 以上", "A"], ["20–25", "<3", "B"], ["> 25", "*", "C"]],
                        decision="inputs=温度(℃),天数; outputs=措施")
    assert table is not None
    assert find_inputs("22℃ 4 days", table) == {"温度(℃)": "22", "天数": "4"}
    assert find_inputs("30 °C 2 days", table) == {"温度(℃)": "30", "天数": "2"}


@pytest.mark.parametrize(("table", "question", "expected"), [
    # a verb or a word that leads an amount before a number taken by its unit names no other
    # quantity (these were left missing: the word before had to start a word of the header)
    (SEAL, "it ran 5 hours", {H: "5"}),
    (SEAL, "the pump ran for about 9000 hours, seal temperature 140", {T: "140", H: "9000"}),
    (SEAL, "it has been running for 9,000 hours", {H: "9000"}),
    (SEAL, "it ran for 5个小时", {H: "5"}),
    (SEAL, "operated 9000 hours at 140 F", {T: "140", H: "9000"}),
    # the unit of a number is no name of the next (hours of 9000 gave Running hours 140)
    (SEAL, "9000 hours at 140 F", {T: "140", H: "9000"}),
    (HOSE, "the hose was used for 2 years, 0.3 mm abrasion", {AGE: "2", DEPTH: "0.3"}),
    (HOSE, "used after 5 years", {AGE: "5"}),
    # a bound after the lead is no value: as written when the table reads it
    (SEAL, "it ran nearly 9000 hours", {}),
    (SEAL, "it ran more than 9000 hours", {H: "more than 9000 hours"}),
    # a noun naming another quantity still names it
    (SEAL, "bearing temperature 190 degrees, it ran 5 hours", {H: "5"}),
    (SEAL, "idle time 5 hours, seal temperature 140", {T: "140"}),
    (PUMP, "suction pressure 30 psi", {}),
    (PUMP, "suction pressure only 30 psi", {}),
    (PUMP, "the suction pressure ran 30 psi", {}),
])
def test_a_verb_before_a_value_names_no_other_quantity(table, question, expected):
    assert table is not None
    assert find_inputs(question, table) == expected
