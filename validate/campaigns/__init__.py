"""The commands that run and judge many answers, each serving every track through the track
registry (:mod:`puzzlesat.validate.tracks`): ``solve`` and ``solve-suite`` (:mod:`.solve`),
``validate-suite`` (:mod:`.validate_suite`), ``calibrate`` (:mod:`.calibrate`), ``tune``
(:mod:`.tune`) and ``submission`` (:mod:`.submission`)."""
