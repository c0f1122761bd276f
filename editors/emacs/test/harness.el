;;; harness.el --- what the Emacs suites share  -*- lexical-binding: t -*-
;;
;; Checks print "ok   - …" or "FAIL - …" on stdout and the suite ends with
;; "N passed, N failed". Files are compared byte for byte with the trees
;; make-workspace.sh saved. Configuration comes from lsp/README.md itself: the suites evaluate
;; the documented snippets, so the documentation is what is tested.

(require 'cl-lib)
(require 'subr-x)
(require 'package)

;; Debian's elpa-* packages (eglot on Emacs 28, lsp-mode, markdown-mode) are activated by
;; package.el from /usr/share/emacs/site-lisp/elpa; nothing is written to ~/.emacs.d.
;; (`emacs -Q' leaves `package-directory-list' empty; a user's Emacs starts with Debian's.)
(setq package-user-dir (expand-file-name "elpa" (getenv "HOME"))
      package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)

(defvar rw-passed 0)
(defvar rw-failed 0)

(defun rw-print (fmt &rest args)
  "Print one line on stdout (`message' goes to stderr in batch mode)."
  (princ (concat (apply #'format fmt args) "\n")))

(defun rw-check (name ok &optional detail)
  "Count a check NAME that passed when OK; DETAIL is printed on failure."
  (if ok
      (progn (cl-incf rw-passed) (rw-print "ok   - %s" name))
    (cl-incf rw-failed)
    (rw-print "FAIL - %s%s" name (if detail (format "\n       %S" detail) "")))
  ok)

(defun rw-summary ()
  (rw-print "%d passed, %d failed" rw-passed rw-failed))

(defmacro rw-section (name &rest body)
  "Run BODY; an error fails NAME and the suite goes on."
  (declare (indent 1))
  `(condition-case err
       (progn ,@body)
     (error (rw-check (format "%s: no error" ,name) nil err))))

(defun rw-env (name)
  (or (getenv name) (error "environment variable %s is not set" name)))

(defvar rw-ws (file-name-as-directory (rw-env "REWIND_TEST_WS")))
(defvar rw-expect (file-name-as-directory (rw-env "REWIND_TEST_EXPECT")))
(defvar rw-bin (rw-env "REWIND_TEST_BIN"))
(defvar rw-readme (rw-env "REWIND_TEST_README"))

(defun rw-bytes (file)
  "FILE's bytes as a unibyte string."
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally file)
    (buffer-string)))

(defun rw-tree (dir)
  "Every file under DIR (symbolic links included, Emacs lock files too) as an alist
of (RELATIVE-PATH . BYTES-or-(link TARGET)), sorted."
  (let (out)
    (dolist (f (directory-files-recursively dir "" nil nil nil))
      (let ((rel (file-relative-name f dir))
            (link (file-symlink-p f)))
        (push (cons rel (if link (list 'link link) (rw-bytes f))) out)))
    (sort out (lambda (a b) (string< (car a) (car b))))))

(defun rw-tree-diff (want-dir got-dir)
  "How GOT-DIR differs from WANT-DIR, or nil when they hold the same files and bytes."
  (let ((want (rw-tree want-dir)) (got (rw-tree got-dir)) diffs)
    (dolist (w want)
      (let ((g (assoc (car w) got)))
        (cond ((not g) (push (format "missing %s" (car w)) diffs))
              ((not (equal (cdr w) (cdr g))) (push (format "differs %s: %S" (car w) (cdr g)) diffs)))))
    (dolist (g got)
      (unless (assoc (car g) want) (push (format "extra %s" (car g)) diffs)))
    (nreverse diffs)))

(defun rw-wait (pred &optional seconds)
  "Process output and timers until PRED is non-nil or SECONDS (default 10) pass; PRED's value."
  (let ((end (+ (float-time) (or seconds 10))) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) end))
      (accept-process-output nil 0.05))
    v))

(defun rw-settle (seconds)
  "Let SECONDS pass while processes and timers run."
  (rw-wait (lambda () nil) seconds))

(defun rw-get (obj &rest keys)
  "Follow KEYS (strings) into OBJ, a JSON object read as a plist, hash table or alist."
  (dolist (k keys obj)
    (setq obj (cond ((hash-table-p obj) (gethash k obj))
                    ((and (listp obj) (keywordp (car-safe obj))) (plist-get obj (intern (concat ":" k))))
                    ((listp obj) (cdr (assoc k obj)))
                    (t nil)))))

(defun rw-seq (v)
  "V (a vector or list, nil for JSON null) as a list."
  (append v nil))

(defun rw-readme-snippet (marker)
  "The elisp code block of lsp/README.md that contains MARKER."
  (with-temp-buffer
    (insert-file-contents rw-readme)
    (goto-char (point-min))
    (let (found)
      (while (and (not found) (re-search-forward "^```elisp\n" nil t))
        (let* ((beg (point))
               (end (progn (re-search-forward "^```$") (match-beginning 0)))
               (code (buffer-substring-no-properties beg end)))
          (when (string-match-p (regexp-quote marker) code) (setq found code))))
      (or found (error "lsp/README.md has no elisp block with %s" marker)))))

(defun rw-eval-snippet (marker)
  "Evaluate the documented snippet that contains MARKER."
  (with-temp-buffer
    (insert (rw-readme-snippet marker))
    (goto-char (point-min))
    (condition-case nil
        (while t (eval (read (current-buffer)) t))
      (end-of-file nil))))

(defun rw-cli (&rest args)
  "Run the rewind-lsp command line on the workspace; its output, or an error."
  (with-temp-buffer
    (let ((code (apply #'call-process rw-bin nil t nil "--root" (directory-file-name rw-ws) args)))
      (unless (eq code 0) (error "rewind-lsp %S: exit %s: %s" args code (buffer-string)))
      (buffer-string))))

(defun rw-check-turns (name want)
  "Check that the journal lists WANT turns: rewinds, undos, the editor's echoes and its lock
files (.#name while a buffer is modified) add none."
  (let ((turns (append (gethash "turns" (json-parse-string (rw-cli "--json" "log"))) nil)))
    (rw-check name (= (length turns) want) (rw-cli "log"))))

(defvar rw-warnings nil "Warnings and unknown-message complaints seen during the suite.")

(defun rw-record-warning (&rest args)
  (push (apply #'format-message (if (stringp (car args)) args (list "%S" args))) rw-warnings))

(defvar rw-questions nil "The questions Emacs asked, newest first (each answered yes, as a person would).")

(defun rw-answer-yes (prompt &rest _)
  (push (string-trim prompt) rw-questions)
  t)

;; In batch mode a question would read stdin; answer it as a person saving their work would.
(advice-add 'yes-or-no-p :override #'rw-answer-yes)
(advice-add 'y-or-n-p :override #'rw-answer-yes)
;; "FILE changed on disk; really edit the buffer?": y (go on; saving then writes the buffer).
(advice-add 'ask-user-about-supersession-threat :override
            (lambda (fn) (rw-answer-yes (format "%s changed on disk; really edit the buffer?" (file-name-nondirectory fn)))))

(provide 'harness)
;;; harness.el ends here
