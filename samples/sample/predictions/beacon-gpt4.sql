SELECT count(*) FROM books
SELECT title FROM books WHERE published_year < 1900
SELECT name FROM authors WHERE death_year IS NULL
SELECT avg(pages) FROM books
SELECT name FROM members WHERE email IS NULL
SELECT DISTINCT genre FROM books ORDER BY genre
SELECT count(*), genre FROM books GROUP BY genre
SELECT T1.title, T1.author_id FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T1.pages > 500
SELECT title FROM books WHERE substr(title, 1, 4) = 'The '
SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T2.nationality IN ('British', 'Russian')
SELECT T1.name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id JOIN books AS T3 ON T2.book_id = T3.book_id WHERE T3.title = 'Beloved' INTERSECT SELECT T1.name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id JOIN books AS T3 ON T2.book_id = T3.book_id WHERE T3.title = 'Nineteen Eighty-Four'
SELECT genre FROM books GROUP BY genre HAVING count(*) > 5
SELECT T1.name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id GROUP BY T1.member_id ORDER BY count(*) DESC LIMIT 1
SELECT title FROM books ORDER BY pages DESC LIMIT 3
SELECT sum(T2.fine) FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id WHERE T1.city = 'Leeds'
SELECT death_year - birth_year FROM authors WHERE name = 'Jane Austen'
SELECT sum(price * copies * 1.1) FROM books WHERE genre = 'science fiction'
SELECT 100.0 * sum(CASE WHEN return_date IS NULL THEN 1 ELSE 0 END) / count(*) FROM loans
SELECT title FROM books WHERE genre = 'fantasy' OR pages < 200
SELECT T1.name FROM members AS T1 LEFT JOIN loans AS T2 ON T1.member_id = T2.member_id WHERE T2.loan_id IS NULL
SELECT name FROM authors EXCEPT SELECT T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id
SELECT loan_id FROM loans WHERE return_date IS NULL AND due_date < date('now')
SELECT avg(julianday(return_date) - julianday(loan_date)) FROM loans
SELECT T2.name, count(*) FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id GROUP BY T1.author_id HAVING count(*) >= 3
SELECT name FROM members WHERE joined_date BETWEEN '2023-01-01' AND '2023-12-31' ORDER BY joined_date
SELECT count(*) FROM books WHERE published_year BETWEEN 1950 AND 1999
SELECT title FROM books ORDER BY published_year LIMIT 1
SELECT nationality FROM authors GROUP BY nationality ORDER BY count(*) DESC LIMIT 1
SELECT count(*) FROM loans WHERE loan_date LIKE '2023%' AND julianday(return_date) - julianday(loan_date) > 28
SELECT substr(loan_date, 1, 4) AS year, count(*) FROM loans GROUP BY year
SELECT T1.membership_type, avg(T2.fine) FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id GROUP BY T1.membership_type
SELECT T3.title FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id JOIN books AS T3 ON T2.book_id = T3.book_id JOIN authors AS T4 ON T3.author_id = T4.author_id WHERE T4.name = 'Toni Morrison' AND T1.city = 'York'
SELECT T1.title FROM books AS T1 JOIN loans AS T2 ON T1.book_id = T2.book_id GROUP BY T2.book_id ORDER BY count(*) DESC LIMIT 1
SELECT T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id GROUP BY T2.author_id HAVING count(DISTINCT T1.genre) > 1
SELECT title FROM books WHERE pages > (SELECT avg(pages) FROM books)
SELECT sum(T1.price) / sum(T1.pages) FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T2.name = 'Haruki Murakami'
SELECT T3.title FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id JOIN books AS T3 ON T2.book_id = T3.book_id WHERE T1.city = 'Harrogate' AND T2.loan_date LIKE '2024-06%' UNION SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T2.nationality = 'Japanese'
SELECT sum(n - 1) FROM (SELECT count(*) AS n FROM loans GROUP BY member_id, book_id)
SELECT title FROM books WHERE book_id NOT IN (SELECT book_id FROM loans)
SELECT flight_number FROM flights WHERE airline = 'Lufthansa'
SELECT count(*) FROM airports
SELECT name FROM airports WHERE country = 'Germany'
SELECT flight_number, destination FROM flights WHERE origin = 'LHR'
SELECT model FROM aircraft WHERE seats > 200 ORDER BY seats
SELECT T1.flight_number FROM flights AS T1 JOIN aircraft AS T2 ON T1.aircraft_id = T2.aircraft_id WHERE T2.manufacturer = 'Airbus'
SELECT 60.0 * distance_km / duration_min FROM flights WHERE flight_number = 'BA117'
SELECT (duration_min + 45) / 60.0 FROM flights WHERE flight_number = 'LH400'
SELECT flight_number FROM flights WHERE status = 'scheduled'
SELECT T1.flight_number FROM flights AS T1 JOIN airports AS T2 ON T1.origin = T2.code WHERE T2.country = 'Spain'
SELECT name FROM airports WHERE name LIKE '%International%'
SELECT origin, count(*) FROM flights GROUP BY origin HAVING count(*) >= 3
SELECT origin FROM flights EXCEPT SELECT destination FROM flights
SELECT T2.name FROM flights AS T1 JOIN airports AS T2 ON T1.origin = T2.code ORDER BY T1.distance_km DESC LIMIT 1
SELECT manufacturer, count(*), sum(seats) FROM aircraft GROUP BY manufacturer
SELECT max(seats) - min(seats) FROM aircraft
SELECT name FROM airports WHERE elevation_ft * 0.3048 > 1000
SELECT flight_number FROM flights WHERE status != 'cancelled' AND price_eur < 180
SELECT origin, destination, min(price_eur) FROM flights GROUP BY origin destination
SELECT count(*) * 1.0 / count(DISTINCT origin) FROM flights
SELECT T1.origin FROM flights AS T1 JOIN aircraft AS T2 ON T1.aircraft_id = T2.aircraft_id WHERE T2.manufacturer = 'Airbus' INTERSECT SELECT T1.origin FROM flights AS T1 JOIN aircraft AS T2 ON T1.aircraft_id = T2.aircraft_id WHERE T2.manufacturer = 'Boeing'
SELECT price_eur * 1.15 FROM flights WHERE flight_number = 'AF22'
SELECT T2.country, sum(T1.distance_km) FROM flights AS T1 JOIN airports AS T2 ON T1.origin = T2.code GROUP BY T2.country
SELECT flight_number FROM flights WHERE distance_km > (SELECT max(distance_km) FROM flights WHERE origin = 'FRA')
SELECT datetime(departure, '+2 hours') FROM flights WHERE flight_number = 'IB6251'
SELECT flight_number FROM flights WHERE origin = 'CDG' AND status = 'scheduled' OR status = 'delayed'
SELECT T2.model FROM flights AS T1 JOIN aircraft AS T2 ON T1.aircraft_id = T2.aircraft_id WHERE T1.status = 'landed' GROUP BY T1.aircraft_id ORDER BY count(*) DESC LIMIT 1
SELECT count(aircraft_id) FROM flights
