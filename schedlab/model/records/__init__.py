"""Job records: one per job a run saw, kept by columns, read back as records or a table.

- :mod:`.job_record`: ``JobRecord``, its ``Status`` and its columns;
- :mod:`.log`: ``RecordLog``, a machine's or server's records kept by columns (all of the storing);
- :mod:`.log_rows`: a record log read back as records (functions of the log);
- :mod:`.columns`: what a record log's optional columns hold, and reading it by columns, or
  as a DataFrame or Arrow table (functions of the log);
- :mod:`.table`: ``job_record`` (a job's record), ``records_frame`` (the DataFrame), and a
  saved run's records read back (``read_records``, ``records_of_frame``);
- :mod:`.arrow_arrays`: pyarrow arrays from numpy arrays and texts, without pandas.
"""
