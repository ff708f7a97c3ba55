from plainmcp.docstrings import Docstring, parse_docstring


def test_none_and_blank() -> None:
    assert parse_docstring(None) == Docstring("", {}, None)
    assert parse_docstring("  \n  ") == Docstring("", {}, None)


def test_description_only_is_dedented_and_stripped() -> None:
    doc = """
        Fetch the weather.

        Uses the public API; results are cached
        for ten minutes.
        """
    assert parse_docstring(doc) == Docstring(
        "Fetch the weather.\n\nUses the public API; results are cached\nfor ten minutes.", {}, None
    )


def test_google_style() -> None:
    def add(a: int, b: int, *args: int, **kwargs: int) -> int:
        """Add two numbers.

        Works for negatives too.

        Args:
            a (int): The first
                number to add.
            b: The second number.
            *args: Extra numbers.
            **kwargs: Ignored options.

        Returns:
            int: The sum of
                both numbers.

        Raises:
            ValueError: If a number is NaN.

        Examples:
            >>> add(1, 2)
            3

        Note:
            c: not a parameter.
        """
        return a + b

    assert parse_docstring(add.__doc__) == Docstring(
        description="Add two numbers.\n\nWorks for negatives too.",
        params={
            "a": "The first number to add.",
            "b": "The second number.",
            "args": "Extra numbers.",
            "kwargs": "Ignored options.",
        },
        returns="The sum of both numbers.",
    )


def test_google_arguments_and_parameters_headers() -> None:
    doc = """Do it.

    Arguments:
        x: The x.
    Parameters:
        y (list[int], optional): The y,
            over two lines.
    """
    assert parse_docstring(doc) == Docstring(
        "Do it.", {"x": "The x.", "y": "The y, over two lines."}, None
    )


def test_google_raises_only_does_not_leak() -> None:
    doc = """Do it.

    Raises:
        KeyError: when missing.
    """
    assert parse_docstring(doc) == Docstring("Do it.", {}, None)


def test_numpy_style() -> None:
    doc = """Scale a vector.

    Parameters
    ----------
    vector : list of float
        The values
        to scale.
    factor : float, optional
        Multiplier.
    x, y : int
        Shared description.
    **options
        Extra.

    Returns
    -------
    list of float
        The scaled
        values.

    Raises
    ------
    ValueError
        If empty.

    Examples
    --------
    >>> scale([1], 2)
    """
    assert parse_docstring(doc) == Docstring(
        description="Scale a vector.",
        params={
            "vector": "The values to scale.",
            "factor": "Multiplier.",
            "x": "Shared description.",
            "y": "Shared description.",
            "options": "Extra.",
        },
        returns="The scaled values.",
    )


def test_numpy_unknown_section_does_not_leak() -> None:
    doc = """Summary.

    Custom
    ------
    secret : stuff
    """
    assert parse_docstring(doc) == Docstring("Summary.", {}, None)


def test_rest_style() -> None:
    doc = """Send a message.

    Longer text.

    :param channel: The channel
        to post in.
    :param int retries: How many
        times to retry.
    :type channel: str
    :param *args: More.
    :returns: The message id.
    :rtype: str
    :raises ValueError: on an unknown channel.
    """
    assert parse_docstring(doc) == Docstring(
        description="Send a message.\n\nLonger text.",
        params={
            "channel": "The channel to post in.",
            "retries": "How many times to retry.",
            "args": "More.",
        },
        returns="The message id.",
    )


def test_rest_return_alias() -> None:
    doc = ":param a: A.\n:return: Nothing much."
    assert parse_docstring(doc) == Docstring("", {"a": "A."}, "Nothing much.")
