"""Measuring runs: functions of records, and the results to check them against.

- :mod:`.metrics`: metrics as functions of job records (wait, slowdown, utilisation, ...);
- :mod:`.queueing`: closed-form results for Markovian queues (M/M/1, Erlang B and C);
- :mod:`.conservation`: Kleinrock's conservation law as a measurement;
- :mod:`.paired`: paired differences with t intervals (common random numbers).
"""
